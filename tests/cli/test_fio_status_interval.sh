#!/usr/bin/env bash
# fio's --status-interval=TIME (issue 28, #8): every TIME (seconds without a
# unit) the whole output so far, in the run's output format, then the
# final output; checked against fio 3.33 on the same job when it is
# installed. RaidScope's telemetry period is --telemetry-ms.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")
cd "$WORK"

job=(--name=s --ioengine=null --size=1g --rw=randread --time_based --runtime=2500ms --rate_iops=4000)
# docs FILE: "COUNT runtime:ios runtime:ios ..." of the JSON documents in FILE.
docs() {
  python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read(); dec = json.JSONDecoder(); i = 0; out = []
while True:
    while i < len(t) and t[i].isspace(): i += 1
    if i >= len(t): break
    d, i = dec.raw_decode(t, i)
    r = d["jobs"][0]["read"]; out.append(f'{r["runtime"]}:{r["total_ios"]}')
print(len(out), *out)
PY
}

"$CLI" bench "${job[@]}" --status-interval=1 --output-format=json --output=b.json 2>err ||
  fail "--status-interval=1: $(cat err)"
[[ ! -s err ]] || fail "--status-interval=1 printed on stderr: $(cat err)"
read -r n d1 d2 last <<<"$(docs b.json)"
[[ $n == 3 ]] || fail "--status-interval=1 on a 2.5 s job: $n JSON documents, expected 3 (1 s, 2 s, final)"
# Each dump is the run so far: its runtime near 1 s and 2 s, its I/Os the
# rate times that runtime (4000 IOPS, within 25 %), the final one 2.5 s.
python3 - "$d1" "$d2" "$last" <<'PY' || fail "--status-interval dumps: $d1 $d2 $last"
import sys
(r1, i1), (r2, i2), (r3, i3) = [map(int, a.split(":")) for a in sys.argv[1:]]
assert 900 <= r1 <= 1400 and 1900 <= r2 <= 2400 and 2450 <= r3 <= 2600, (r1, r2, r3)
for r, i in ((r1, i1), (r2, i2), (r3, i3)):
    assert abs(i - 4 * r) <= r, (r, i)
assert i1 < i2 < i3
PY
pass "--status-interval=1, json: dumps at ${d1%%:*} and ${d2%%:*} ms, then the final output (${last%%:*} ms)"

"$CLI" bench "${job[@]}" --status-interval=1000ms >normal.txt 2>err || fail "--status-interval=1000ms: $(cat err)"
[[ $(grep -c "^Run status group 0" normal.txt) == 3 ]] ||
  fail "--status-interval=1000ms, normal output: $(grep -c '^Run status group 0' normal.txt) outputs, expected 3"
pass "--status-interval=1000ms, normal output: three whole outputs"

# fio's meaning, not milliseconds: 100 is 100 s, longer than the job.
"$CLI" bench "${job[@]}" --status-interval=100 >long.txt 2>err || fail "--status-interval=100: $(cat err)"
[[ $(grep -c "^Run status group 0" long.txt) == 1 ]] || fail "--status-interval=100 dumped before the 2.5 s job ended"
pass "--status-interval=100 is 100 s: only the final output"

# A job with nothing in flight (think time) answers a dump at once, with
# its figures as of the dump, not at its next completion; and a dump has
# the run's global options, as the final output (and fio's dumps) have.
# 2.5 s: no dump falls on the job's end (dumps at 1 s and 2 s, then the final).
idle=(--ioengine=null --size=1g --name=idle --rw=read --bs=4k --thinktime=2s --time_based --runtime=2500ms)
"$CLI" bench "${idle[@]}" --status-interval=1 --output-format=json --output=idle.json 2>err ||
  fail "a thinking job with --status-interval=1: $(cat err)"
python3 - idle.json <<'PY' || fail "--status-interval dumps of a job in its think time (see above)"
import json, sys
t = open(sys.argv[1]).read(); dec = json.JSONDecoder(); i = 0; docs = []
while True:
    while i < len(t) and t[i].isspace(): i += 1
    if i >= len(t): break
    d, i = dec.raw_decode(t, i); docs.append(d)
assert len(docs) == 3, f"{len(docs)} documents, expected 3 (1 s, 2 s, final)"
for n, d in enumerate(docs):
    assert d.get("global options") == {"ioengine": "null", "size": "1g"}, (n, d.get("global options"))
# I/Os at 0 s and 2 s (think time 2 s): the 1 s dump has the first one, and
# the time until the dump (not the start's copy: no I/O, 0 ms).
r = docs[0]["jobs"][0]["read"]
assert r["total_ios"] == 1 and r["runtime"] >= 900, ("1 s dump", r["total_ios"], r["runtime"])
PY
pass "--status-interval: a job in its think time answers at the dump; every dump has the global options"

expect_status 2 "--status-interval=500us" -- "$CLI" bench "${job[@]}" --status-interval=500us
expect_error_mentions "too small"
expect_status 2 "--status-interval=soon" -- "$CLI" bench "${job[@]}" --status-interval=soon
expect_error_mentions "status-interval"
expect_status 2 "--telemetry-ms=5" -- "$CLI" bench "${job[@]}" --telemetry-ms=5
expect_error_mentions "telemetry-ms"
pass "a status interval under 1 ms (fio's limit) or not a time, and a telemetry period under 20 ms, are refused"

if command -v fio >/dev/null; then
  fio "${job[@]}" --status-interval=1 --output-format=json --output=f.json >/dev/null 2>&1 || fail "fio failed"
  read -r fn _ <<<"$(docs f.json)"
  [[ $fn == "$n" ]] || fail "fio printed $fn JSON documents, bench $n"
  pass "as fio 3.33: $fn documents"
fi
