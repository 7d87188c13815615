#!/usr/bin/env bash
# RAID1 with any member count md accepts: 2, 3, 9, 16 and 33 image files
# round-trip random data, survive a reassemble, check clean, and mdadm
# --examine (when installed) reads every member's superblock.
source "$(dirname "$0")/lib.sh"
head -c $((3 << 20)) /dev/urandom >data
for n in 2 3 9 16 33; do
  members=()
  for ((i = 0; i < n; i++)); do members+=("r${n}_$i.img"); done
  expect_status 0 "create raid1 of $n" -- "$CLI" create --level=1 --raid-devices=$n --create-files=8M "${members[@]}"
  expect_status 0 "write to raid1 of $n" -- "$CLI" write --offset=12345 "${members[@]}" <data
  "$CLI" read --offset=12345 --length=$((3 << 20)) "${members[@]}" | cmp -s - data ||
    fail "raid1 of $n: data read back differs"
  expect_status 0 "check raid1 of $n" -- "$CLI" check "${members[@]}"
  grep -q "mismatches: 0" "$WORK/last.out" || fail "raid1 of $n: $(cat "$WORK/last.out")"
  "$CLI" detail "${members[@]}" | grep -q "Working Devices : $n" || fail "raid1 of $n: not every member works"
  if command -v mdadm >/dev/null; then
    for m in "${members[@]}"; do
      out=$(mdadm --examine "$m" 2>&1) || fail "mdadm --examine $m: $out"
      grep -q "Raid Devices : $n" <<<"$out" || fail "mdadm on $m: $(grep 'Raid Devices' <<<"$out")"
      grep -q "Checksum : .* - correct" <<<"$out" || fail "mdadm on $m: checksum not correct"
    done
  fi
  pass "raid1 of $n members: round trip, check clean$(command -v mdadm >/dev/null && echo ", mdadm --examine reads all $n")"
done
