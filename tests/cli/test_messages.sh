#!/usr/bin/env bash
# Messages that must say what is wrong (issue 25, item 8): each case runs
# the command as a user would and checks the words, the exit status, and
# that nothing was written when the command refused. (ENOSPC and a failed
# degraded write naming the member: test_member_failure.sh; an interrupted
# write's byte count: test_signals.sh; an immutable file:
# test_message_immutable.sh.)
source "$(dirname "$0")/lib.sh"

# no_raw_bytes FILE: only printable ASCII, tabs and newlines.
no_raw_bytes() {
  if LC_ALL=C grep -q '[^[:print:][:space:]]' "$1"; then
    fail "$2: raw bytes in the message: $(head -c 200 "$1" | od -c | head -3)"
  fi
}

# 1. An empty path is called empty.
expect_status 2 "create with an empty path" -- "$CLI" create --level=1 --raid-devices=2 --create-files=16M "" e1.img
expect_error_mentions "empty path"
[[ ! -e e1.img ]] || fail "create with an empty path made e1.img"
expect_status 2 "write with an empty path" -- "$CLI" write "" e1.img </dev/null
expect_error_mentions "empty path"
expect_status 2 "examine ''" -- "$CLI" examine ""
expect_error_mentions "empty path"
expect_status 2 "fail --member=''" -- "$CLI" fail --member= a.img b.img
expect_error_mentions "empty"
pass "an empty path is called an empty path"

# 2. add on a member that is already complete says so, and changes nothing.
"$CLI" create --level=1 --raid-devices=2 --create-files=16M a.img b.img >/dev/null
before=$(checksum_files a.img b.img)
expect_status 0 "add of a complete member" -- "$CLI" add --member=b.img a.img b.img
grep -q "already a complete member" "$WORK/last.out" || fail "add of a complete member: $(cat "$WORK/last.out" "$WORK/last.err")"
grep -q "resuming" "$WORK/last.err" && fail "add of a complete member talks of resuming: $(cat "$WORK/last.err")"
[[ $(checksum_files a.img b.img) == "$before" ]] || fail "add of a complete member changed the members"
pass "add on a complete member: '$(cat "$WORK/last.out")'"

# 3. check/repair with no redundancy left: said, exit 4, never "mismatches: 0".
"$CLI" create --level=5 --raid-devices=3 --chunk=64K --create-files=16M r0.img r1.img r2.img >/dev/null
"$CLI" fail --member=r1.img r0.img r1.img r2.img >/dev/null
for cmd in check repair; do
  expect_status 4 "$cmd on a degraded RAID5" -- "$CLI" $cmd r0.img r2.img
  expect_error_mentions "no redundancy"
  grep -q "mismatches" "$WORK/last.out" && fail "$cmd on a degraded RAID5 printed $(cat "$WORK/last.out")"
done
said=$(grep "no redundancy" "$WORK/last.err")
"$CLI" fail --member=b.img a.img b.img >/dev/null
expect_status 4 "check on a RAID1 down to one member" -- "$CLI" check a.img
expect_error_mentions "no redundancy"
# Some redundancy left (a 3-way mirror less one): check runs.
"$CLI" create --level=1 --raid-devices=3 --create-files=16M t0.img t1.img t2.img >/dev/null
"$CLI" fail --member=t2.img t0.img t1.img t2.img >/dev/null
expect_status 0 "check on a 3-way mirror with one member failed" -- "$CLI" check t0.img t1.img
grep -q "mismatches: 0" "$WORK/last.out" || fail "check with two copies left: $(cat "$WORK/last.out")"
pass "check/repair without redundancy: exit 4, '$said'"

# 4. Every COMMAND --help prints that command's usage.
for cmd in create examine detail write read fail add check repair tunables devices bench simulate report; do
  expect_status 0 "$cmd --help" -- "$CLI" $cmd --help
  grep -q "^usage: raidscope-cli $cmd" "$WORK/last.out" || fail "$cmd --help: $(head -3 "$WORK/last.out" "$WORK/last.err")"
done
expect_status 0 "write -h" -- "$CLI" write -h
grep -q "^usage: raidscope-cli write" "$WORK/last.out" || fail "write -h"
pass "every COMMAND --help prints its usage"

# 5. A write that would run past the end writes nothing, from a file or a
#    pipe (2 MiB where 1.5 MiB fit: more than one of write's 1 MiB pieces).
"$CLI" create --level=1 --raid-devices=2 --create-files=16M w0.img w1.img >/dev/null
size=$("$CLI" detail --json w0.img w1.img | python3 -c 'import json,sys; print(json.load(sys.stdin)["size_bytes"])')
head -c $((2 << 20)) /dev/urandom >two
room=$((3 << 19))
before=$(checksum_files w0.img w1.img)
expect_status 2 "a file past the end" -- "$CLI" write --offset=$((size - room)) w0.img w1.img <two
expect_error_mentions "nothing written"
{ cat two || true; } | { expect_status 2 "a pipe past the end" -- "$CLI" write --offset=$((size - room)) w0.img w1.img; }
expect_error_mentions "nothing written"
expect_error_mentions "more than the $room bytes that fit"
said=$(cat "$WORK/last.err")
[[ $(checksum_files w0.img w1.img) == "$before" ]] || fail "a write past the end changed the members"
head -c $room two | { expect_status 0 "a pipe that fits exactly" -- "$CLI" write --offset=$((size - room)) w0.img w1.img; }
"$CLI" read --offset=$((size - room)) --length=$room w0.img w1.img | cmp -s - <(head -c $room two) ||
  fail "the write that fits did not land"
pass "a write past the end: nothing written, '$said'"

# 6. --name with control characters (fake lines in examine) or too long.
for name in $'a\nState : clean' $'tab\there' $'esc\e[31m'; do
  expect_status 2 "--name with a control character" -- "$CLI" create --level=1 --raid-devices=2 --name="$name" \
    --create-files=16M n0.img n1.img
  expect_error_mentions "printable"
  no_raw_bytes "$WORK/last.err" "--name"
  [[ ! -e n0.img ]] || fail "a refused name created n0.img"
done
expect_status 2 "--name of 40 bytes" -- "$CLI" create --level=1 --raid-devices=2 --name=host:0123456789012345678901234567890123 \
  --create-files=16M n0.img n1.img
expect_error_mentions "at most 32"
pass "--name: control characters and lengths over 32 bytes refused"

# 7. Job-file errors quote the text, escaped and cut.
head -c 4096 /dev/urandom >binary.fio
expect_status 2 "a binary job file" -- "$CLI" bench binary.fio
no_raw_bytes "$WORK/last.err" "binary job file"
python3 -c 'import sys; sys.stdout.write("[j]\nrw=read\x1b[2J\n")' >escape.fio
expect_status 2 "a job file with an escape sequence" -- "$CLI" bench escape.fio
expect_error_mentions 'x1b'
no_raw_bytes "$WORK/last.err" "escape in a job file"
python3 -c 'import sys; sys.stdout.write("[j]\n" + "x" * 10000000 + "\n")' >long.fio
expect_status 2 "a job file with a 10 MB line" -- "$CLI" bench long.fio
(($(stat -c %s "$WORK/last.err") < 2000)) || fail "a 10 MB line gave a $(stat -c %s "$WORK/last.err")-byte message"
expect_error_mentions "10000000 bytes"
pass "job-file errors: escaped and cut ('$(cut -c1-120 "$WORK/last.err")...')"

# 8. --create-files never takes over an existing file that is not a member.
head -c $((16 << 20)) /dev/urandom >precious.img
before=$(checksum_files precious.img)
expect_status 1 "create --create-files over an existing file" -- "$CLI" create --level=1 --raid-devices=2 \
  --create-files=16M precious.img fresh.img
expect_error_mentions "not an array member"
[[ $(checksum_files precious.img) == "$before" && ! -e fresh.img ]] || fail "the refused create wrote something"
expect_status 1 "create --create-files --force over an existing file" -- "$CLI" create --level=1 --raid-devices=2 \
  --force --create-files=16M precious.img fresh.img
[[ $(checksum_files precious.img) == "$before" && ! -e fresh.img ]] || fail "the refused create wrote something"
expect_status 1 "add --create-files over an existing file" -- "$CLI" add --member=precious.img --create-files=16M a.img
expect_error_mentions "not an array member"
[[ $(checksum_files precious.img) == "$before" ]] || fail "the refused add wrote to precious.img"
# Files it made itself (members) may be named again with --create-files.
expect_status 0 "add --create-files naming the old member" -- "$CLI" add --member=b.img --create-files=16M a.img
pass "--create-files: an existing file that is not a member is refused, untouched"

# 9. --bitmap-chunk=0 is refused, saying what a bitmap chunk must be.
expect_status 2 "--bitmap-chunk=0" -- "$CLI" create --level=1 --raid-devices=2 --bitmap=internal --bitmap-chunk=0 \
  --create-files=16M z0.img z1.img
expect_error_mentions "power of two"
[[ ! -e z0.img ]] || fail "--bitmap-chunk=0 created z0.img"
pass "--bitmap-chunk=0 refused: '$(cat "$WORK/last.err")'"
