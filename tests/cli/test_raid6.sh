#!/usr/bin/env bash
# RAID6 through raidscope-cli as a user types it: create in each of md's
# RAID6 layouts, mdadm --examine reads every member (raid6, the layout's
# name as mdadm prints it, the chunk, checksum correct), write/read round
# trip, two members failed and read degraded, both added back and rebuilt
# (one add of both, rebuilt in one pass, or one add after the other), check
# finds nothing, damage found by check naming which of P and Q was wrong and
# fixed by repair, and the bad usages exit non-zero writing nothing. Exits 77
# without mdadm.
source "$(dirname "$0")/lib.sh"
MDADM=$(command -v mdadm || true)
[[ -x ${MDADM:-/sbin/mdadm} ]] || MDADM=/sbin/mdadm
[[ -x $MDADM ]] || { echo "skip: mdadm is not installed"; exit 77; }

head -c 3000000 /dev/urandom >data

n=0
for layout in left-symmetric left-asymmetric right-symmetric right-asymmetric \
  left-symmetric-6 left-asymmetric-6 right-symmetric-6 right-asymmetric-6; do
  m=($layout-{0,1,2,3,4}.img)
  "$CLI" create --level=6 --raid-devices=5 --layout=$layout --chunk=128K --create-files=12M "${m[@]}" >/dev/null
  for i in 0 1 2 3 4; do
    out=$("$MDADM" --examine "${m[$i]}")
    grep -Eq "Raid Level : raid6$" <<<"$out" || fail "$layout: mdadm Raid Level"
    grep -Eq "Layout : $layout$" <<<"$out" || fail "$layout: mdadm Layout: $(grep Layout <<<"$out")"
    grep -Eq "Chunk Size : 128K$" <<<"$out" || fail "$layout: mdadm Chunk Size"
    grep -Eq "Raid Devices : 5$" <<<"$out" || fail "$layout: mdadm Raid Devices"
    grep -Eq "Device Role : Active device $i$" <<<"$out" || fail "$layout: mdadm Device Role"
    grep -Eq "Checksum : [0-9a-f]+ - correct$" <<<"$out" || fail "$layout: mdadm checksum"
  done
  pass "$layout: mdadm --examine reads raid6, $layout, 128K, checksum correct on every member"
  "$CLI" write --offset=5000 "${m[@]}" <data >/dev/null 2>&1
  "$CLI" read --offset=5000 --length=3000000 "${m[@]}" | cmp - data || fail "$layout: round trip"
  "$CLI" fail --member="${m[1]}" "${m[@]}" >/dev/null
  "$CLI" fail --member="${m[3]}" "${m[@]}" >/dev/null
  "$CLI" read --offset=5000 --length=3000000 "${m[@]}" 2>/dev/null | cmp - data || fail "$layout: read, two missing"
  truncate -s 12M $layout-new1.img $layout-new3.img
  if ((n++ % 2 == 0)); then  # both in one add: one rebuild pass
    "$CLI" add --member=$layout-new1.img --member=$layout-new3.img "${m[0]}" "${m[2]}" "${m[4]}" >add.out 2>add.err ||
      fail "$layout: add of two: $(cat add.err)"
    grep -q "$layout-new1.img and $layout-new3.img rebuilt in one pass; array is clean" add.out ||
      fail "$layout: add of two: $(cat add.out)"
    [[ $(grep -c "^rebuild .*100%" add.err) == 1 ]] || fail "$layout: one rebuild's progress: $(cat add.err)"
    m[1]=$layout-new1.img m[3]=$layout-new3.img
  else  # one after the other
    "$CLI" add --member=$layout-new1.img "${m[0]}" "${m[2]}" "${m[4]}" >/dev/null 2>&1
    m[1]=$layout-new1.img
    "$CLI" add --member=$layout-new3.img "${m[0]}" "${m[1]}" "${m[2]}" "${m[4]}" >/dev/null 2>&1
    m[3]=$layout-new3.img
  fi
  [[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 0" ]] || fail "$layout: check after rebuild"
  "$CLI" read --offset=5000 --length=3000000 "${m[@]}" | cmp - data || fail "$layout: read after rebuild"
  pass "$layout: round trip, two members failed, read, both rebuilt, check"
done

"$CLI" detail left-symmetric-{0,2,4}.img left-symmetric-new{1,3}.img >detail.txt
grep -q "Raid Level : raid6" detail.txt || fail "detail: level"
grep -q "Layout : left-symmetric" detail.txt || fail "detail: layout"
pass "detail describes raid6"

# Damage on members (behind the array's back) found by check, naming which
# of P and Q was wrong, and fixed by repair. md's left-symmetric RAID6 on 5
# members, worked by hand: stripe 0 has P on member 4 (raid_disks-1-0), Q on
# member 0 (the one after P) and data on 1, 2, 3. A damaged data page makes
# P and Q both wrong; a damaged P page only P, a damaged Q page only Q.
m=(left-symmetric-0.img left-symmetric-new1.img left-symmetric-2.img left-symmetric-new3.img left-symmetric-4.img)
page() { echo $((1024 * 1024 / 4096 + $1)); }  # data start at 1 MiB
head -c 8192 /dev/urandom | dd of=${m[2]} bs=4096 seek=$(page 5) conv=notrunc status=none  # 2 data pages
head -c 4096 /dev/urandom | dd of=${m[4]} bs=4096 seek=$(page 9) conv=notrunc status=none  # P
head -c 4096 /dev/urandom | dd of=${m[0]} bs=4096 seek=$(page 12) conv=notrunc status=none # Q
"$CLI" check "${m[@]}" >check.out 2>/dev/null
[[ $(head -1 check.out) == "mismatches: 32" ]] || fail "check after damage: $(cat check.out)"
grep -q "^P (the parity) was wrong on 3 pages and Q (the second syndrome) on 3 pages of 4 KiB" check.out ||
  fail "check does not say which of P and Q was wrong: $(cat check.out)"
"$CLI" repair "${m[@]}" >repair.out 2>/dev/null
[[ $(head -1 repair.out) == "mismatches: 32" ]] || fail "repair: $(cat repair.out)"
grep -q "was wrong on 3 pages and Q .* on 3 pages .*repair rewrote P and Q there" repair.out ||
  fail "repair does not say what it rewrote: $(cat repair.out)"
[[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 0" ]] || fail "check after repair"
head -c 4096 /dev/urandom | dd of=${m[0]} bs=4096 seek=$(page 3) conv=notrunc status=none # Q only
"$CLI" check "${m[@]}" >check.out 2>/dev/null
[[ $(head -1 check.out) == "mismatches: 8" ]] || fail "check after Q damage: $(cat check.out)"
grep -q "^P (the parity) was wrong on 0 pages and Q (the second syndrome) on 1 page of 4 KiB$" check.out ||
  fail "check of a Q-only damage: $(cat check.out)"
"$CLI" repair "${m[@]}" >/dev/null 2>&1
[[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 0" ]] || fail "check after the second repair"
pass "check counts damaged pages (8 sectors each) and says how many had P and how many Q wrong; repair fixes them"

expect_status 2 "raid6 of 3" -- "$CLI" create --level=6 --raid-devices=3 --create-files=12M x0 x1 x2
expect_error_mentions "4"
expect_status 2 "unknown raid6 layout" -- "$CLI" create --level=6 --raid-devices=4 --layout=n2 --create-files=12M x0 x1 x2 x3
expect_error_mentions "n2"
expect_status 1 "parity-first-6 (known to mdadm, unsupported)" -- "$CLI" create --level=6 --raid-devices=4 --layout=parity-first-6 --create-files=12M x0 x1 x2 x3
expect_error_mentions "not implemented"
[[ ! -e x0 ]] || fail "a refused create wrote x0"
pass "bad usages exit 2 (parity-first-6: 1, unsupported) and write nothing"

# The RAID5-vs-RAID6 write-cost scenario through `simulate`, as the other
# scenarios: md's rmw by hand for 8 members, 2 reads + 2 writes per 4 KiB
# write on RAID5 and 3 + 3 on RAID6; whole stripes write 8/7 and 8/6.
"$CLI" simulate --scenario=raid5-vs-raid6-write-cost --runtime=1 >sim.out 2>sim.err || fail "simulate: $(cat sim.err)"
grep -Eq "raid5 +per array write: 2.00 member reads \+ 2.00 member writes" sim.out || fail "raid5 rmw cost: $(cat sim.out)"
grep -Eq "raid6 +per array write: 3.00 member reads \+ 3.00 member writes" sim.out || fail "raid6 rmw cost: $(cat sim.out)"
grep -Eq "raid5 +per array write: 0.00 member reads .* 1.143 member bytes written per byte" sim.out || fail "raid5 full stripe: $(cat sim.out)"
grep -Eq "raid6 +per array write: 0.00 member reads .* 1.333 member bytes written per byte" sim.out || fail "raid6 full stripe: $(cat sim.out)"
pass "simulate compares RAID5 and RAID6 write cost on the same disks (md's rmw 2+2 vs 3+3; 8/7 vs 8/6)"
