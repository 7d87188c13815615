#!/usr/bin/env bash
# The nine reliability defects of issue 15 (found by adversarial testing at
# 75311b5), each reproduced from the command line as a user or a crash would
# leave things, and the behaviour md/mdadm have instead. Superblock states
# are made with rs_sb_edit (the project's own encoder).
source "$(dirname "$0")/lib.sh"
SB_EDIT=${RS_SB_EDIT:?RS_SB_EDIT must point at rs_sb_edit}
DATA_OFFSET=$((1 << 20))  # create puts the data 1 MiB into each member

# 1. An unclean stop's "needs resync" mark must survive the next write, and
#    the copies must be made equal (md resyncs a dirty array) before the
#    array is called clean.
"$CLI" create --level=1 --raid-devices=2 --create-files=16M a.img b.img >/dev/null
head -c 65536 /dev/urandom >d1
"$CLI" write a.img b.img <d1 2>/dev/null
"$SB_EDIT" a.img resync_offset=0
"$SB_EDIT" b.img resync_offset=0
# One 4 KiB block of b's data area now differs from a's.
head -c 4096 /dev/urandom | dd of=b.img bs=4096 seek=$(((DATA_OFFSET + 8192) / 4096)) conv=notrunc status=none
expect_status 0 "detail of a dirty array" -- "$CLI" detail a.img b.img
grep -q "resync" "$WORK/last.out" || fail "detail does not say the array needs a resync: $(grep State "$WORK/last.out")"
echo z | "$CLI" write a.img b.img 2>/dev/null
"$CLI" detail a.img b.img >detail.out
state=$(grep "State :" detail.out)
if [[ $state != *resync* ]]; then
  # Called clean: then the copies must really be equal.
  expect_status 0 "check after the resync" -- "$CLI" check a.img b.img
  grep -q "mismatches: 0" "$WORK/last.out" || fail "detail says '$state' but check finds $(cat "$WORK/last.out")"
fi
expect_status 0 "check (resyncs first)" -- "$CLI" check a.img b.img
grep -q "mismatches: 0" "$WORK/last.out" || fail "after the resync the copies still differ: $(cat "$WORK/last.out")"
"$CLI" detail a.img b.img | grep "State :" | grep -qv resync || fail "resynced array still says resync"
# md's rule: the first copy wins, so after failing a, b serves a's bytes.
"$CLI" read --offset=8192 --length=4096 a.img b.img >before_fail
"$CLI" fail --member=a.img a.img b.img >/dev/null
"$CLI" read --offset=8192 --length=4096 --run b.img >after_fail 2>/dev/null
cmp -s before_fail after_fail || fail "after failing a, b returns different bytes"
cmp -s <(head -c 12288 d1 | tail -c 4096) after_fail || fail "the resync copied b's bytes over a's (md keeps the first copy)"
pass "1: dirty mark kept until resynced; resync makes the copies equal, first copy wins"

# 2. A member one event behind is current (md's and mdadm's rule).
"$CLI" create --level=10 --raid-devices=4 --create-files=16M r0.img r1.img r2.img r3.img >/dev/null
"$CLI" write r0.img r1.img r2.img r3.img <d1 2>/dev/null
"$SB_EDIT" r1.img events=+1
expect_status 0 "one member one event ahead" -- "$CLI" detail r0.img r1.img r2.img r3.img
grep -q "Working Devices : 4" "$WORK/last.out" || fail "a member one event apart was not used: $(cat "$WORK/last.out")"
expect_status 0 "write with one member one event ahead" -- "$CLI" write r0.img r1.img r2.img r3.img <d1
expect_status 0 "check" -- "$CLI" check r0.img r1.img r2.img r3.img
grep -q "mismatches: 0" "$WORK/last.out" || fail "mismatches after the write"
pass "2: members one event apart assemble as in sync"

# 3. An event counter at its maximum is refused, nothing written.
"$CLI" create --level=1 --raid-devices=2 --create-files=16M e0.img e1.img >/dev/null
"$CLI" write e0.img e1.img <d1 2>/dev/null
"$SB_EDIT" e0.img events=0xffffffffffffffff
before=$(checksum_files e0.img e1.img)
echo new | { expect_status 1 "events at the maximum" -- "$CLI" write e0.img e1.img; }
expect_error_mentions "event"
[[ $(checksum_files e0.img e1.img) == "$before" ]] || fail "events at the maximum: something was written"
pass "3: an event counter that would wrap is refused"

# 5. A chunk larger than the member: refused before anything is written.
expect_status 2 "chunk larger than the member" -- "$CLI" create --level=10 --raid-devices=4 --chunk=1G \
  --create-files=16M c0.img c1.img c2.img c3.img
expect_error_mentions "chunk"
[[ ! -e c0.img ]] || fail "chunk too large: the member files were left behind"
pass "5: a chunk larger than the member is refused, no files left"

# 6. Offsets at 2^64 and beyond do not wrap.
before=$(checksum_files a.img b.img)
echo x | { expect_status 2 "offset 2^64+3" -- "$CLI" write --offset=18446744073709551619 --run b.img; }
expect_error_mentions "offset"
[[ $(checksum_files a.img b.img) == "$before" ]] || fail "offset 2^64+3: something was written"
pass "6: sizes of 2^64 and more are refused"

# 7. The range is checked before stdin is read; stdin streams in pieces.
set +e
timeout 20 "$CLI" write --offset=100G e1.img --run </dev/zero >/dev/null 2>"$WORK/last.err"
got=$?
set -e
[[ $got == 2 ]] || fail "write at 100G from /dev/zero: exit $got (124 = still reading stdin after 20 s)"
expect_error_mentions "past the end"
"$CLI" create --level=1 --raid-devices=2 --create-files=96M s0.img s1.img >/dev/null
# Streamed, the memory a write takes does not grow with the data: compare
# the peak RSS for 16 MiB and for 64 MiB (sanitizer builds have a large but
# constant baseline, so the difference is what tells).
head -c $((16 << 20)) /dev/urandom >small
head -c $((64 << 20)) /dev/urandom >big
/usr/bin/time -f "%M" -o rss_small "$CLI" write s0.img s1.img <small 2>/dev/null
/usr/bin/time -f "%M" -o rss_big "$CLI" write s0.img s1.img <big 2>/dev/null
growth=$(($(cat rss_big) - $(cat rss_small)))
((growth < 16384)) || fail "48 MiB more data took $growth KiB more memory: stdin is not streamed"
"$CLI" read --offset=0 --length=$((64 << 20)) s0.img s1.img | cmp -s - big || fail "streamed write reads back different"
pass "7: write checks the range first and streams stdin (peak RSS $(cat rss_small) KiB for 16 MiB, $(cat rss_big) KiB for 64 MiB)"

# 8. --layout: mdadm's spellings only, bad ones are usage errors naming the option.
expect_status 2 "layout n99999999999" -- "$CLI" create --level=10 --raid-devices=4 --layout=n99999999999 \
  --create-files=16M l0.img l1.img l2.img l3.img
expect_error_mentions "layout"
expect_status 2 "layout 2n" -- "$CLI" create --level=10 --raid-devices=4 --layout=2n \
  --create-files=16M l0.img l1.img l2.img l3.img
[[ ! -e l0.img ]] || fail "bad layout: files were created"
pass "8: bad --layout values are usage errors"

# 9. Leaving a member out does not degrade the array silently.
"$CLI" create --level=1 --raid-devices=2 --create-files=16M g0.img g1.img >/dev/null
before=$(checksum_files g0.img g1.img)
echo hi | { expect_status 1 "a member left out" -- "$CLI" write g0.img; }
expect_error_mentions "missing"
expect_error_mentions "--run"
[[ $(checksum_files g0.img g1.img) == "$before" ]] || fail "a member left out: something was written"
echo hi | { expect_status 0 "--run starts it degraded" -- "$CLI" write --run g0.img; }
"$CLI" detail g0.img g1.img >d9.out 2>&1 || true
grep -q "g1.img" d9.out || fail "detail does not say why g1.img is not used"
pass "9: an array with a member left out needs --run; the left-out member is named"
