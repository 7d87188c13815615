#!/usr/bin/env bash
# RAID6 through raidscope-cli as a user types it: create in each of md's
# RAID6 layouts, mdadm --examine reads every member (raid6, the layout's
# name as mdadm prints it, the chunk, checksum correct), write/read round
# trip, two members failed and read degraded, both added back and rebuilt,
# check finds nothing, damage found by check and fixed by repair, and the
# bad usages exit non-zero writing nothing. Exits 77 without mdadm.
source "$(dirname "$0")/lib.sh"
MDADM=$(command -v mdadm || true)
[[ -x ${MDADM:-/sbin/mdadm} ]] || MDADM=/sbin/mdadm
[[ -x $MDADM ]] || { echo "skip: mdadm is not installed"; exit 77; }

head -c 3000000 /dev/urandom >data

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
  "$CLI" add --member=$layout-new1.img "${m[0]}" "${m[2]}" "${m[4]}" >/dev/null 2>&1
  m[1]=$layout-new1.img
  "$CLI" add --member=$layout-new3.img "${m[0]}" "${m[1]}" "${m[2]}" "${m[4]}" >/dev/null 2>&1
  m[3]=$layout-new3.img
  [[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 0" ]] || fail "$layout: check after rebuild"
  "$CLI" read --offset=5000 --length=3000000 "${m[@]}" | cmp - data || fail "$layout: read after rebuild"
  pass "$layout: round trip, two members failed, read, both rebuilt, check"
done

"$CLI" detail left-symmetric-{0,2,4}.img left-symmetric-new{1,3}.img >detail.txt
grep -q "Raid Level : raid6" detail.txt || fail "detail: level"
grep -q "Layout : left-symmetric" detail.txt || fail "detail: layout"
pass "detail describes raid6"

# Damage on a member (behind the array's back) found by check, fixed by repair.
m=(left-symmetric-0.img left-symmetric-new1.img left-symmetric-2.img left-symmetric-new3.img left-symmetric-4.img)
head -c 8192 /dev/urandom | dd of=${m[2]} bs=4096 seek=$((1024 * 1024 / 4096 + 5)) conv=notrunc status=none
[[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 16" ]] || fail "check after damage: $("$CLI" check "${m[@]}" 2>/dev/null)"
"$CLI" repair "${m[@]}" >/dev/null 2>&1
[[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 0" ]] || fail "check after repair"
pass "check counts 2 damaged pages as 16 sectors; repair fixes them"

expect_status 2 "raid6 of 3" -- "$CLI" create --level=6 --raid-devices=3 --create-files=12M x0 x1 x2
expect_error_mentions "4"
expect_status 2 "unknown raid6 layout" -- "$CLI" create --level=6 --raid-devices=4 --layout=n2 --create-files=12M x0 x1 x2 x3
expect_error_mentions "n2"
expect_status 1 "parity-first-6 (known to mdadm, unsupported)" -- "$CLI" create --level=6 --raid-devices=4 --layout=parity-first-6 --create-files=12M x0 x1 x2 x3
expect_error_mentions "not implemented"
[[ ! -e x0 ]] || fail "a refused create wrote x0"
pass "bad usages exit 2 (parity-first-6: 1, unsupported) and write nothing"
