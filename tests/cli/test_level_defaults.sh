#!/usr/bin/env bash
# One set of level rules, as mdadm has them: without --layout/--chunk a new
# array gets mdadm's defaults (raid10 near=2, raid5 left-symmetric, chunk
# 512K), layout 0 (la) means left-asymmetric, and a level without layouts
# or chunks refuses them. mdadm --examine is the judge.
source "$(dirname "$0")/lib.sh"
MDADM=$(command -v mdadm || true)
[[ -x ${MDADM:-/sbin/mdadm} ]] || MDADM=/sbin/mdadm
if [[ ! -x $MDADM ]]; then
  echo "SKIP: mdadm is not installed (./run.sh test installs it)"; exit 77
fi

examine_field() { "$MDADM" --examine "$1" | sed -n "s/^ *$2 : //p"; }

"$CLI" create --level=5 --raid-devices=3 --create-files=16M d5-{0,1,2}.img >/dev/null
[[ $(examine_field d5-0.img Layout) == left-symmetric ]] || fail "raid5 default layout: $(examine_field d5-0.img Layout)"
[[ $(examine_field d5-0.img "Chunk Size") == 512K ]] || fail "raid5 default chunk: $(examine_field d5-0.img 'Chunk Size')"
pass "raid5 without --layout/--chunk: left-symmetric, 512K"

"$CLI" create --level=5 --raid-devices=3 --layout=la --create-files=16M la-{0,1,2}.img >/dev/null
[[ $(examine_field la-0.img Layout) == left-asymmetric ]] || fail "raid5 --layout=la: $(examine_field la-0.img Layout)"
pass "raid5 --layout=la (layout word 0) is left-asymmetric"

"$CLI" create --level=10 --raid-devices=4 --create-files=16M d10-{0,1,2,3}.img >/dev/null
[[ $(examine_field d10-0.img Layout) == near=2 ]] || fail "raid10 default layout: $(examine_field d10-0.img Layout)"
pass "raid10 without --layout: near=2"

expect_status 2 "raid1 with --chunk" -- "$CLI" create --level=1 --raid-devices=2 --chunk=64K --create-files=16M c-{0,1}.img
expect_error_mentions "raid1 has no chunks"
expect_status 2 "raid1 with --layout" -- "$CLI" create --level=1 --raid-devices=2 --layout=n2 --create-files=16M c-{0,1}.img
expect_error_mentions "raid1 has no layouts"
expect_status 2 "raid5 with a chunk that is not a power of two" -- \
  "$CLI" create --level=5 --raid-devices=3 --chunk=12K --create-files=16M c-{0,1,2}.img
expect_error_mentions "power of two"
[[ ! -e c-0.img ]] || fail "a refused create left files behind"
pass "levels refuse what they do not have, and write nothing"
