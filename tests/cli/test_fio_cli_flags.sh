#!/usr/bin/env bash
# fio's run-level command-line flags (issue 28, #8), each next to fio 3.33
# on the same command: the exit status, whether the job ran (its file was
# made), and stderr (empty where fio's is). fio's test suite passes
# --max-jobs=16 to every job test.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# outcome TOOL... : "exit=N ran=yes|no stderr=empty|text" for one job writing ./w.0.0.
outcome() {
  rm -rf run && mkdir run
  local rc=0
  (cd run && "$@" --name=w --size=64k --bs=4k --filename=w.0.0 >out 2>err) || rc=$?
  echo "exit=$rc ran=$([[ -s run/w.0.0 ]] && echo yes || echo no) stderr=$([[ -s run/err ]] && echo text || echo empty)"
}
same() {  # same FLAGS...: bench's outcome is fio's
  local f r
  f=$(outcome fio "$@") r=$(outcome "$CLI" bench "$@")
  [[ $r == "$f" ]] || { cat run/err >&2; fail "$*: bench $r, fio $f"; }
  pass "$*: $r, as fio"
}
same --max-jobs=16 --rw=write
same --max-jobs=1 --rw=write --numjobs=2
same --parse-only --rw=write
same --readonly --rw=write
same --readonly --rw=randtrim
same --eta=never --rw=write
same --eta=always --rw=write
same --debug=io --rw=write
same --debug=random,file --rw=write

# --debug=parse: fio's handle_option lines and steady-state thresholds (fio's
# t/steadystate_tests.py looks for the latter), the same lines as fio's.
parse_lines() {  # TOOL...: the option lines of a --parse-only run, pid dropped
  { "$@" --parse-only --debug=parse --ss_dur=10s --ss=bw:12k --ss_ramp=5 --name=p --rw=read 2>/dev/null || true; } |
    sed -nE 's/^parse +[0-9]+ +((handle_option=|set steady).*)/\1/p'
}
f=$(parse_lines fio) r=$(parse_lines "$CLI" bench)
[[ -n $f && $r == "$f" ]] || fail "--debug=parse: bench printed [$r], fio [$f]"
grep -qF "set steady state BW threshold to 12288" <<<"$r" || fail "--debug=parse: no BW threshold line"
pass "--debug=parse: fio's option lines ($(wc -l <<<"$r") lines, as fio's)"

# The same messages: --readonly's refusal is fio's own sentence.
outcome "$CLI" bench --readonly --rw=write >/dev/null
grep -qF "trim and write operations are not allowed with the --readonly parameter" run/err ||
  { cat run/err >&2; fail "--readonly: not fio's refusal"; }
# Under --readonly a read job's missing file is not laid out (fio fails it).
f=$(outcome fio --readonly --rw=read) r=$(outcome "$CLI" bench --readonly --rw=read)
[[ $r == "$f" ]] || fail "--readonly read job, no file: bench $r, fio $f"
grep -q "refusing extend of file due to read-only" run/err || { cat run/err >&2; fail "--readonly: not fio's words"; }
pass "--readonly: fio's refusal for writes and trims and for laying out a read job's file ($r)"

# fio's client/server mode stays out, said by name.
for flag in --server --client=localhost; do
  expect_status 2 "$flag" -- "$CLI" bench "$flag" --name=w --size=64k --rw=read
  expect_error_mentions "${flag%%=*}"
done
pass "--server and --client are refused, naming the flag"

# --bandwidth-log (fio's t0030 passes it): agg-read_bw.log, agg-write_bw.log
# and agg-trim_bw.log in the current directory, as fio makes them (fio 3.33
# here leaves them empty); bench's lines are the run's read bandwidth per
# 500 ms window, whose mean is the JSON bw within 30 %.
for tool in fio "$CLI bench"; do
  rm -rf bwl && mkdir bwl
  # shellcheck disable=SC2086
  (cd bwl && $tool --name=t --filename=f.dat --size=16m --rw=randread --bs=4k --time_based --runtime=2s \
    --bandwidth-log --output-format=json --output=o.json >out 2>err) || fail "$tool --bandwidth-log: $(cat bwl/err)"
  [[ ! -s bwl/err ]] || fail "$tool --bandwidth-log printed on stderr: $(cat bwl/err)"
  for d in read write trim; do [[ -f bwl/agg-${d}_bw.log ]] || fail "$tool --bandwidth-log: no agg-${d}_bw.log"; done
done
python3 - bwl <<'PY' || fail "--bandwidth-log: bench's read windows do not add up to the run's bandwidth"
import json, sys
d = sys.argv[1]
rows = [[int(x) for x in l.split(",")] for l in open(f"{d}/agg-read_bw.log")]
assert len(rows) >= 3 and all(r[2] == 0 and r[0] % 500 == 0 for r in rows), rows
bw = json.load(open(f"{d}/o.json"))["jobs"][0]["read"]["bw"]
mean = sum(r[1] for r in rows) / len(rows)
assert 0.7 * bw < mean < 1.3 * bw, (mean, bw)
PY
pass "--bandwidth-log: fio's three files; bench's read log per 500 ms adds up to the run's bandwidth"
