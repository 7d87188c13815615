#!/usr/bin/env bash
# A member that fails while a command runs is never passed over in silence:
# a line on stderr names the member, what failed and the error, and the
# command exits 3 ("done, but degraded"). When no member can take the data,
# the error names the real errno (a full disk: ENOSPC, not EIO), the
# members, and how much was written before. Members fill up for real: image
# files on a small tmpfs (root only; skipped otherwise).
source "$(dirname "$0")/lib.sh"
if [[ $(id -u) != 0 ]]; then echo "SKIP: mounting a small tmpfs needs root"; exit 77; fi
mkdir small
mount -t tmpfs -o size=24M raidscope-test small 2>/dev/null || { echo "SKIP: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$WORK/small" 2>/dev/null; rm -rf "$WORK"' EXIT
head -c $((40 << 20)) /dev/urandom >data
ENOSPC_TEXT="No space left on device"

# 1. RAID1, one member on a filesystem with room for 24 MiB of its 64.
"$CLI" create --level=1 --raid-devices=2 --create-files=64M small/m0.img m1.img >/dev/null
expect_status 3 "write that fills one member" -- "$CLI" write small/m0.img m1.img <data
grep -q "member small/m0.img failed: write error at device sector [0-9]*: $ENOSPC_TEXT" "$WORK/last.err" ||
  { cat "$WORK/last.err" >&2; fail "the failure does not name the member and ENOSPC"; }
grep -q "the array is degraded (1 of 2 members)" "$WORK/last.err" || fail "the line does not say the array is degraded"
grep -q "wrote $((40 << 20)) bytes" "$WORK/last.err" || fail "the write did not finish on the other member"
"$CLI" read --offset=0 --length=$((40 << 20)) small/m0.img m1.img 2>/dev/null | cmp -s - data ||
  fail "the data written does not read back"
pass "a member that fills up: named with ENOSPC on stderr, exit 3, the data on the other member"

# 2. The same array, already degraded: said once, exit 0 (nothing new failed).
expect_status 0 "write on an already degraded array" -- "$CLI" write --offset=0 small/m0.img m1.img < <(head -c 4096 data)
[[ $(grep -c "degraded" "$WORK/last.err") == 1 ]] ||
  { cat "$WORK/last.err" >&2; fail "the degraded state is not said exactly once"; }
pass "an array degraded before the command: one line, exit 0"

# 3. Every member full: the error names ENOSPC and both members, and how
#    many bytes were written before it; those bytes are there.
umount small && mount -t tmpfs -o size=30M raidscope-test small
"$CLI" create --level=1 --raid-devices=2 --create-files=64M small/a.img small/b.img >/dev/null
expect_status 1 "write onto two full members" -- "$CLI" write small/a.img small/b.img <data
grep -q "$ENOSPC_TEXT" "$WORK/last.err" || { cat "$WORK/last.err" >&2; fail "ENOSPC is not named"; }
grep -q "Input/output error" "$WORK/last.err" && { cat "$WORK/last.err" >&2; fail "the error is still called EIO"; }
grep -q "small/a.img" "$WORK/last.err" && grep -q "small/b.img" "$WORK/last.err" ||
  { cat "$WORK/last.err" >&2; fail "the members are not both named"; }
written=$(grep -o "wrote [0-9]* bytes at offset 0 before the failure" "$WORK/last.err" | grep -o "[0-9]*" | head -1)
[[ -n $written ]] || { cat "$WORK/last.err" >&2; fail "the error does not say how much was written"; }
((written > 0 && written < (40 << 20))) || fail "wrote $written bytes?"
"$CLI" read --offset=0 --length=$written small/a.img small/b.img 2>/dev/null | cmp -s - <(head -c $written data) ||
  fail "the $written bytes said written do not read back"
pass "every member full: '$(tail -1 "$WORK/last.err" | cut -c1-160)...'"

# 4. RAID5, one member of three fills up; bench names it as write does.
umount small && mount -t tmpfs -o size=12M raidscope-test small
"$CLI" create --level=5 --raid-devices=3 --chunk=64K --create-files=64M r0.img small/r1.img r2.img >/dev/null
expect_status 3 "bench that fills a RAID5 member" -- "$CLI" bench --array=r0.img,small/r1.img,r2.img --name=fill \
  --rw=write --bs=1M --size=40m --ioengine=io_uring --direct=1
grep -q "member small/r1.img failed: write error at device sector [0-9]*: $ENOSPC_TEXT" "$WORK/last.err" ||
  { cat "$WORK/last.err" >&2; fail "bench: the failure does not name the member and ENOSPC"; }
grep -q "the array is degraded (2 of 3 members)" "$WORK/last.err" || fail "bench: no word of the degraded array"
pass "bench on RAID5: the member that filled up named, exit 3"

# 5. A failure asked for (bench --fail-member) is reported, not an error.
"$CLI" create --level=1 --raid-devices=2 --create-files=64M f0.img f1.img >/dev/null
expect_status 0 "bench --fail-member" -- "$CLI" bench --array=f0.img,f1.img --fail-member=1@0.2 --name=w --rw=write \
  --bs=64k --size=8m --runtime=1 --time_based --ioengine=io_uring --direct=1
grep -q "member f1.img failed: failed during the benchmark" "$WORK/last.err" ||
  { cat "$WORK/last.err" >&2; fail "the asked-for failure is not reported"; }
pass "bench --fail-member: reported, exit 0"
