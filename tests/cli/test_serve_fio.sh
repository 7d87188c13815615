#!/usr/bin/env bash
# fio's nbd engine through raidscope-cli serve: randwrite with crc32c
# verify and randrw, 0 verify errors; then a member failed while fio writes
# (serving goes on degraded, 0 errors), added back and rebuilt while
# serving, and the data verified again with only the rebuilt member left.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
source "$HERE/serve_lib.sh"
need_tool fio
fio --enghelp 2>/dev/null | grep -qw nbd || { echo "skipped: this fio has no nbd engine"; exit 77; }

"$CLI" create --level=1 --raid-devices=2 --create-files=80M m0.img m1.img >/dev/null 2>&1
start_serve serve.log --nbd=unix:"$WORK/s.sock" m0.img m1.img
COMMON=(--ioengine=nbd --uri="$URI" --bs=4k --iodepth=16 --size=48M --verify=crc32c --verify_fatal=1)

run_fio() {  # name args...: 0 errors or the test fails
  local name=$1; shift
  fio --name="$name" "${COMMON[@]}" "$@" --output-format=json --output="$name.json" ||
    { cat "$name.json" >&2; fail "fio $name exited non-zero"; }
  python3 - "$name.json" <<'PY' || fail "fio $name: errors"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["error"] == 0, j["error"]
assert j["read"]["io_bytes"] + j["write"]["io_bytes"] > 0
PY
}

run_fio randwrite --rw=randwrite
run_fio randrw --rw=randrw --rwmixread=50
pass "fio randwrite+verify and randrw: 0 errors"

# A member fails while fio writes (rate-limited so the run spans the fail).
fio --name=degraded "${COMMON[@]}" --rw=randwrite --rate=16m --output-format=json --output=degraded.json &
FIO=$!
sleep 1
serve_command "fail m1.img"
wait $FIO || { cat degraded.json >&2; fail "fio with a member failed mid-run"; }
python3 -c 'import json; assert json.load(open("degraded.json"))["jobs"][0]["error"] == 0' || fail "verify errors"
wait_for_line serve.log "member m1.img failed" 10 || fail "the failure was not reported"
pass "member failed mid-run: fio 0 errors, failure reported"

# A new disk in the failed one's place (the failed member stays in its
# slot as faulty until then, as in md).
truncate -s 80M m2.img
serve_command "add m2.img"
wait_for_line serve.log "m2.img: active sync" 60 || { cat serve.log >&2; fail "the rebuild did not finish"; }
# Only the rebuilt member left: every block fio wrote must read back from it.
serve_command "fail m0.img"
wait_for_line serve.log "member m0.img failed" 10 || fail "fail m0.img"
fio --name=degraded "${COMMON[@]}" --rw=randwrite --verify_only --output-format=json --output=again.json ||
  { cat again.json >&2; fail "verify after the rebuild"; }
python3 -c 'import json; j = json.load(open("again.json"))["jobs"][0]; assert j["error"] == 0 and j["read"]["io_bytes"] > 0' ||
  fail "verify after the rebuild: errors"
pass "rebuilt while serving; verified again from the rebuilt member alone"
stop_serve 3  # stopped, members failed while serving
grep -q "closed cleanly" serve.log || fail "no clean stop"
