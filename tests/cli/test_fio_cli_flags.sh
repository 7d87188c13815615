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
