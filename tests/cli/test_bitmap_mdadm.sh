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
trap 'losetup -d "$loop" 2>/dev/null || true; rm -rf "$WORK"' EXIT
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
losetup -d "$loop"
pass "a kill leaves $dirty dirty chunk(s) that mdadm -X sees; resync and a clean stop clear them"

# The bitmap superblock's events follow the array superblock's (md writes
# both at every superblock update; the kernel resyncs the whole array when
# the bitmap's are older): after a write, a member failure and the close,
# mdadm -X and mdadm -E agree on every member still in the array.
"$CLI" write --offset=0 m0.img m1.img m2.img m3.img <data >/dev/null
expect_status 0 "fail m3.img" -- "$CLI" fail --member=m3.img m0.img m1.img m2.img m3.img
for m in m0.img m1.img m2.img; do
  loop=$(losetup -f --show -r "$m")
  sb_events=$(mdadm -E "$loop" | awk '$1 == "Events" && $2 == ":" {print $3}')
  bm_events=$(mdadm -X "$loop" | awk '$1 == "Events" && $2 == ":" {print $3}')
  losetup -d "$loop"
  [[ -n $sb_events && $sb_events == "$bm_events" ]] ||
    fail "$m: mdadm -E says events ${sb_events:-?}, mdadm -X (the bitmap) ${bm_events:-?}"
done
pass "after a write, a member failure and the close, mdadm -X and mdadm -E both say events $sb_events on m0..m2"
