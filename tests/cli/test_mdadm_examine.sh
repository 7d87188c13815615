#!/usr/bin/env bash
# Debian's mdadm --examine reads our members: level, devices, layout,
# chunk, array UUID, device role and a correct checksum.
source "$(dirname "$0")/lib.sh"
MDADM=$(command -v mdadm || true)
[[ -x ${MDADM:-/sbin/mdadm} ]] || MDADM=/sbin/mdadm
if [[ ! -x $MDADM ]]; then
  echo "SKIP: mdadm is not installed (./run.sh test installs it)"; exit 77
fi

check_examine() {
  local file=$1 level=$2 devices=$3 layout=$4 chunk=$5 role=$6 uuid=$7
  local out; out=$("$MDADM" --examine "$file")
  grep -Eq "Raid Level : $level\$" <<<"$out" || fail "$file: Raid Level (want $level)"
  grep -Eq "Raid Devices : $devices\$" <<<"$out" || fail "$file: Raid Devices"
  [[ -z $layout ]] || grep -Eq "Layout : $layout\$" <<<"$out" || fail "$file: Layout (want $layout)"
  [[ -z $chunk ]] || grep -Eq "Chunk Size : $chunk\$" <<<"$out" || fail "$file: Chunk Size (want $chunk)"
  grep -Eq "Array UUID : $uuid\$" <<<"$out" || fail "$file: Array UUID (want $uuid)"
  grep -Eq "Device Role : Active device $role\$" <<<"$out" || fail "$file: Device Role (want $role)"
  grep -Eq "Checksum : [0-9a-f]+ - correct\$" <<<"$out" || fail "$file: Checksum not correct"
}

uuid_of() { "$CLI" detail --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["array_uuid"])'; }

"$CLI" create --level=1 --raid-devices=2 --create-files=16M a.img b.img >/dev/null
u=$(uuid_of a.img b.img)
check_examine a.img raid1 2 "" "" 0 "$u"
check_examine b.img raid1 2 "" "" 1 "$u"
pass "raid1 members read by mdadm"

for l in n2:near=2 f2:far=2 o2:offset=2; do
  short=${l%%:*} long=${l#*:}
  "$CLI" create --level=10 --raid-devices=4 --layout=$short --chunk=256K --create-files=16M $short-{0,1,2,3}.img >/dev/null
  u=$(uuid_of $short-{0,1,2,3}.img)
  for i in 0 1 2 3; do check_examine $short-$i.img raid10 4 "$long" 256K $i "$u"; done
  pass "raid10 $short members read by mdadm"
done

# Our examine agrees with mdadm on the fields above.
ours=$("$CLI" examine n2-2.img)
for field in "Raid Level : raid10" "Raid Devices : 4" "Layout : near=2" "Chunk Size : 256K" "Device Role : Active device 2"; do
  grep -q "$field" <<<"$ours" || fail "raidscope-cli examine lacks '$field'"
done
pass "raidscope-cli examine agrees"

# After a failure and a rebuild, mdadm still reads every member.
"$CLI" fail --member=a.img a.img b.img >/dev/null
truncate -s 16M c.img
"$CLI" add --member=c.img b.img 2>/dev/null >/dev/null
u=$(uuid_of b.img c.img)
check_examine c.img raid1 2 "" "" 0 "$u"
"$MDADM" --examine b.img | grep -q "Array State : AA" || fail "array state after rebuild"
pass "mdadm reads members after fail + add"
