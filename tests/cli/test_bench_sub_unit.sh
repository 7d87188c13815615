#!/usr/bin/env bash
# bench on an array with I/O not aligned to the array's unit (issue 25,
# item 2), exactly as the issue ran it: the job changes only its own bytes
# of data already there and its verify passes (direct=0, fio's default);
# with direct=1 such a job is refused before the run, naming the unit and
# the option, and nothing is written.
source "$(dirname "$0")/lib.sh"

# Known data over the first 64 KiB of the array, then the job; only
# [lo, hi) may differ afterwards.
prefill() {
  head -c 65536 /dev/urandom >before.bin
  "$CLI" write --offset=0 "$@" <before.bin 2>/dev/null
}
changed_outside() {  # lo hi MEMBER...: prints the byte offsets outside [lo, hi) that changed
  local lo=$1 hi=$2
  shift 2
  "$CLI" read --offset=0 --length=65536 "$@" >after.bin
  { cmp -l before.bin after.bin || true; } | awk -v lo="$lo" -v hi="$hi" '{ o = $1 - 1; if (o < lo || o >= hi) print o }' | head -5
}

"$CLI" create --level=1 --raid-devices=2 --create-files=32M --bitmap=none r1a.img r1b.img >/dev/null
"$CLI" create --level=5 --raid-devices=3 --chunk=64K --create-files=32M --bitmap=none r5a.img r5b.img r5c.img \
  >/dev/null 2>&1

# RAID1, 512-byte unit: bs=1000 at 4000 (the issue saw 3584-5119 change).
prefill r1a.img r1b.img
"$CLI" bench --array=r1a.img,r1b.img --name=j --rw=write --bs=1000 --offset=4000 --size=2000 >r1.out 2>r1.err ||
  { cat r1.err; fail "RAID1 sub-unit bench failed"; }
grep -q "err= 0" r1.out || { cat r1.out; fail "RAID1 sub-unit bench reported an error"; }
outside=$(changed_outside 4000 6000 r1a.img r1b.img)
[[ -z $outside ]] || fail "RAID1 bs=1000 offset=4000 size=2000 changed bytes outside [4000, 6000): $outside"
[[ $({ cmp -l before.bin after.bin || true; } | wc -l) -gt 1000 ]] || fail "RAID1: the job's own bytes did not change"
pass "RAID1 bs=1000 offset=4000 size=2000 changes only [4000, 6000)"

# RAID5, 4 KiB unit: bs=512 at 3584 (the issue saw 0-4095 change).
prefill r5a.img r5b.img r5c.img
"$CLI" bench --array=r5a.img,r5b.img,r5c.img --name=j --rw=write --bs=512 --offset=3584 --size=512 >r5.out 2>r5.err ||
  { cat r5.err; fail "RAID5 sub-unit bench failed"; }
outside=$(changed_outside 3584 4096 r5a.img r5b.img r5c.img)
[[ -z $outside ]] || fail "RAID5 bs=512 offset=3584 size=512 changed bytes outside [3584, 4096): $outside"
pass "RAID5 bs=512 offset=3584 size=512 changes only [3584, 4096)"

# The job's own verify passes (on today's code it failed).
for spec in "r1a.img,r1b.img 1000 4000 2000" "r5a.img,r5b.img,r5c.img 512 3584 512"; do
  read -r arr bs off size <<<"$spec"
  expect_status 0 "verify of bs=$bs offset=$off" -- "$CLI" bench --array="$arr" --name=v --rw=write --bs="$bs" \
    --offset="$off" --size="$size" --verify=crc32c --verify_fatal=1
  grep -q "err= 0" "$WORK/last.out" || { cat "$WORK/last.out"; fail "verify of bs=$bs offset=$off: an error"; }
  if grep -qi "verify.*mismatch\|bad magic" "$WORK/last.out" "$WORK/last.err"; then
    cat "$WORK/last.out" "$WORK/last.err"
    fail "verify of bs=$bs offset=$off found bad blocks"
  fi
done
pass "verify=crc32c passes on sub-unit jobs"

# direct=1: refused before the run, naming the unit and the option; nothing written.
prefill r5a.img r5b.img r5c.img
expect_status 2 "RAID5 direct=1 bs=512" -- "$CLI" bench --array=r5a.img,r5b.img,r5c.img --name=d --direct=1 \
  --rw=write --bs=512 --offset=3584 --size=512
expect_error_mentions "bs"
expect_error_mentions "4096"
expect_error_mentions "EINVAL"
expect_status 2 "RAID5 direct=1 offset=2048" -- "$CLI" bench --array=r5a.img,r5b.img,r5c.img --name=d --direct=1 \
  --rw=write --bs=4k --offset=2048 --size=8k
expect_error_mentions "offset"
expect_error_mentions "4096"
outside=$(changed_outside 65536 65536 r5a.img r5b.img r5c.img)
[[ -z $outside ]] || fail "a refused direct=1 job changed bytes: $outside"
expect_status 2 "RAID1 direct=1 bs=1000" -- "$CLI" bench --array=r1a.img,r1b.img --name=d --direct=1 --rw=write \
  --bs=1000 --size=4000
expect_error_mentions "512"
pass "direct=1 off the unit refused before the run, naming unit and option"
