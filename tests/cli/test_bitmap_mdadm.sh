#!/usr/bin/env bash
# Debian's mdadm reads our write-intent bitmap: `mdadm -X` (which looks for
# an internal bitmap only on block devices, so through a loop device over
# the member file) prints our chunk size, bit count and dirty count.
# Skipped (77) without mdadm, without root or without loop devices.
source "$(dirname "$0")/lib.sh"
command -v mdadm >/dev/null || { echo "skip: mdadm not installed"; exit 77; }
((EUID == 0)) || { echo "skip: loop devices need root"; exit 77; }
"$CLI" create --level=10 --raid-devices=4 --layout=n2 --chunk=64K --bitmap=internal --bitmap-chunk=1M \
  --create-files=64M m0.img m1.img m2.img m3.img >/dev/null
head -c $((3 << 20)) /dev/urandom >data
loop=$(losetup -f --show -r m0.img 2>/dev/null) || { echo "skip: no loop device"; exit 77; }
trap 'losetup -d "$loop" 2>/dev/null; rm -rf "$WORK"' EXIT
out=$(mdadm -X "$loop")
grep -q "Magic : 6d746962" <<<"$out" || fail "mdadm -X: no bitmap magic: $out"
grep -q "Chunksize : 1 MB" <<<"$out" || fail "mdadm -X chunk size: $(grep Chunksize <<<"$out")"
# raid10 n2 of 4 x 63 MiB: the bitmap covers the array, 126 MiB: 126 chunks.
grep -q "Bitmap : 126 bits (chunks), 0 dirty" <<<"$out" || fail "mdadm -X bits: $(grep Bitmap <<<"$out")"
uuid=$("$CLI" examine m0.img | awk '/Array UUID/ {print $4}')
grep -q "UUID : $uuid" <<<"$out" || fail "mdadm -X shows another UUID than the array's ($uuid)"
losetup -d "$loop"
pass "mdadm -X reads a clean bitmap: 126 chunks of 1 MiB, UUID $uuid"

# A crash while writing leaves the written chunks dirty on disk.
"$CLI" bench --array=m0.img,m1.img,m2.img,m3.img --name=w --rw=randwrite --bs=4k --iodepth=4 --size=2m \
  --runtime=30 --time_based --direct=1 >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -9 $pid; wait $pid 2>/dev/null || true
loop=$(losetup -f --show -r m0.img)
dirty=$(mdadm -X "$loop" | sed -n 's/.*bits (chunks), \([0-9]*\) dirty.*/\1/p')
losetup -d "$loop"
((dirty == 2)) || fail "after a kill mid-write mdadm -X counts $dirty dirty chunks (the writes covered the first 2 MiB: 2)"
"$CLI" check m0.img m1.img m2.img m3.img | grep -q "mismatches: 0" || fail "check after the kill"
loop=$(losetup -f --show -r m0.img)
mdadm -X "$loop" | grep -q "0 dirty" || fail "the bitmap is still dirty after resync and a clean stop"
pass "a kill leaves $dirty dirty chunk(s) that mdadm -X sees; resync and a clean stop clear them"
