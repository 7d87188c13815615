#!/usr/bin/env bash
# raidscope-cli serve to real NBD clients: nbdinfo sees the size and block
# sizes declared; qemu-img converts a 64 MiB random image into the export
# and compares it identical; nbdcopy copies out and in, cmp identical; a
# RAID5 declares 4096 and its stripe; exposed addresses are refused
# without --listen-any, and served with a warning with it.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
source "$HERE/serve_lib.sh"
need_tool nbdinfo "libnbd-bin"
need_tool nbdcopy "libnbd-bin"
need_tool qemu-img "qemu-utils"
need_tool python3

"$CLI" create --level=1 --raid-devices=2 --create-files=80M m0.img m1.img >/dev/null 2>&1
start_serve serve.log --nbd=unix:"$WORK/s.sock" --name=disk m0.img m1.img
[[ $URI == "nbd+unix:///disk?socket=$WORK/s.sock" ]] || fail "uri printed: $URI"
# 80 MiB members less md's 1 MiB data offset (superblock 1.2 on image files).
SIZE=$((79 << 20))

nbdinfo --json "$URI" >info.json
python3 - "$SIZE" <<'PY' || fail "nbdinfo --json does not show the declared size and block sizes"
import json, sys
e = json.load(open("info.json"))["exports"][0]
assert e["export-size"] == int(sys.argv[1]), (e["export-size"], sys.argv[1])
assert e["block_size_minimum"] == 512 and e["block_size_preferred"] == 4096, e
assert e["block_size_maximum"] == 32 * 1024 * 1024, e
assert e["can_flush"] and e["can_fua"] and e["can_multi_conn"] and e["can_zero"], e
PY
pass "nbdinfo: size and block sizes"

head -c $((64 << 20)) /dev/urandom >img.raw
qemu-img convert -n -f raw -O raw img.raw "$URI" || fail "qemu-img convert into the export"
qemu-img compare -f raw -F raw img.raw "$URI" >cmp.out || { cat cmp.out >&2; fail "qemu-img compare"; }
pass "qemu-img convert + compare: identical"

nbdcopy "$URI" out.raw || fail "nbdcopy out"
cmp -n $((64 << 20)) img.raw out.raw || fail "nbdcopy out: the first 64 MiB differ"
head -c "$(stat -c %s out.raw)" /dev/urandom >in.raw
nbdcopy in.raw "$URI" || fail "nbdcopy in"
nbdcopy "$URI" back.raw || fail "nbdcopy out again"
cmp in.raw back.raw || fail "nbdcopy in then out: differ"
pass "nbdcopy out and in: identical"
grep -q "client .* connected" serve.log || fail "connections not reported"
stop_serve 0
grep -q "closed cleanly" serve.log || fail "no clean stop"
# The data is the array's: read back by another command after the stop.
"$CLI" read --offset=0 --length=$((1 << 20)) m0.img m1.img 2>/dev/null | cmp -n $((1 << 20)) - in.raw ||
  fail "data written through NBD not read back by raidscope-cli read"
pass "stopped cleanly; the data is on the array"

"$CLI" create --level=5 --raid-devices=4 --chunk=64K --create-files=32M r0.img r1.img r2.img r3.img >/dev/null 2>&1
start_serve serve5.log --nbd=tcp:127.0.0.1:0 r0.img r1.img r2.img r3.img
nbdinfo --json "$URI" >info5.json
python3 -c '
import json; e = json.load(open("info5.json"))["exports"][0]
assert e["block_size_minimum"] == 4096 and e["block_size_preferred"] == 65536, e' ||
  fail "RAID5: minimum 4096 and preferred 64 KiB (the power-of-two part of a 3 x 64 KiB stripe)"
stop_serve 0
pass "raid5 block sizes"

expect_status 2 "exposed address" -- "$CLI" serve --nbd=tcp:0.0.0.0:10809 r0.img r1.img r2.img r3.img
expect_error_mentions "listen-any"
expect_status 2 "bad name" -- "$CLI" serve --name='a b' r0.img r1.img r2.img r3.img
pass "exposed addresses and bad names refused"

# --listen-any serves there, and says that other machines reach it.
start_serve serve_any.log --nbd=tcp:0.0.0.0:0 --listen-any r0.img r1.img r2.img r3.img
grep -q "warning: listening on tcp:0.0.0.0:[1-9][0-9]*, reachable from other machines" serve_any.log ||
  { cat serve_any.log >&2; fail "--listen-any: no warning that the export is reachable from other machines"; }
nbdinfo --size "nbd://127.0.0.1:$(sed -n 's/.*tcp:0.0.0.0:\([0-9]*\).*/\1/p' serve_any.log | head -1)/raidscope" >/dev/null ||
  fail "--listen-any: not served on loopback"
stop_serve 0
pass "--listen-any serves and warns"
