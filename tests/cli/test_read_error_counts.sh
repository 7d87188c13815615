#!/usr/bin/env bash
# A member's corrected read errors (md's corrected_errors: sectors rewritten
# after read errors, kept in its superblock's cnt_corrected_read) as the CLI
# shows them: `detail` names the count on the member's line, `detail --json`
# gives read_errors and corrected_errors per member and the array's
# max_read_errors (md's default 20), and the count survives the superblock
# updates of a write. (The correction itself is tested in the engine tests
# with injected bad blocks: tests/engine/raid*/test_read_errors.cpp.)
source "$(dirname "$0")/lib.sh"
SB_EDIT=${RS_SB_EDIT:?RS_SB_EDIT must point at rs_sb_edit}

"$CLI" create --level=1 --raid-devices=2 --create-files=16M a.img b.img >/dev/null
# As an earlier run that rewrote one 4 KiB block of b.img left it.
"$SB_EDIT" b.img cnt_corrected_read=8

member_json() {  # FIELD: "a.img=N b.img=M" from detail --json
  "$CLI" detail --json a.img b.img |
    python3 -c "import json,sys; j=json.load(sys.stdin); print(' '.join(m['path'].split('/')[-1] + '=' + str(m['$1']) for m in j['members']))"
}
expect_status 0 "detail" -- "$CLI" detail a.img b.img
grep "b.img" "$WORK/last.out" | grep -q "(8 sectors rewritten after read errors)" ||
  fail "detail does not show b.img's 8 corrected sectors: $(grep b.img "$WORK/last.out")"
grep "a.img" "$WORK/last.out" | grep -q "rewritten" && fail "detail shows corrected sectors on a.img"
[[ $(member_json corrected_errors) == "a.img=0 b.img=8" ]] || fail "detail --json corrected_errors: $(member_json corrected_errors)"
[[ $(member_json read_errors) == "a.img=0 b.img=0" ]] || fail "detail --json read_errors: $(member_json read_errors)"
max=$("$CLI" detail --json a.img b.img | python3 -c "import json,sys; print(json.load(sys.stdin)['max_read_errors'])")
[[ $max == 20 ]] || fail "max_read_errors is $max, md's default is 20"
pass "detail shows b.img's 8 corrected sectors, 0 read errors, max_read_errors 20"

head -c 65536 /dev/urandom | "$CLI" write a.img b.img >/dev/null
[[ $(member_json corrected_errors) == "a.img=0 b.img=8" ]] ||
  fail "after a write the superblocks say corrected_errors $(member_json corrected_errors)"
pass "the count is kept through a write's superblock updates"
