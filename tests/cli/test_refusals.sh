#!/usr/bin/env bash
# Members that must be refused: a flipped superblock byte, a truncated
# member, members of two different arrays, a member in use by another
# process. Each: exit 1, a message naming the problem, nothing written.
source "$(dirname "$0")/lib.sh"

"$CLI" create --level=1 --raid-devices=2 --create-files=16M a.img b.img >/dev/null
"$CLI" create --level=1 --raid-devices=2 --create-files=16M c.img d.img >/dev/null
head -c 65536 /dev/urandom >data
"$CLI" write a.img b.img <data 2>/dev/null

# Flipped byte in the superblock (the level field at 4096+72).
cp --sparse=always a.img flip.img
printf '\x05' | dd of=flip.img bs=1 seek=$((4096 + 72)) conv=notrunc status=none
before=$(checksum_files flip.img b.img)
expect_status 1 "flipped byte" -- "$CLI" detail flip.img b.img
expect_error_mentions "checksum"
expect_error_mentions "flip.img"
[[ $(checksum_files flip.img b.img) == "$before" ]] || fail "flipped byte: something was written"
expect_status 1 "flipped byte (write)" -- "$CLI" write flip.img b.img < data
[[ $(checksum_files flip.img b.img) == "$before" ]] || fail "flipped byte: write wrote something"
pass "flipped superblock byte refused"

# Truncated member: the data area runs past the end.
cp --sparse=always b.img trunc.img
truncate -s 8M trunc.img
before=$(checksum_files a.img trunc.img)
expect_status 1 "truncated" -- "$CLI" write a.img trunc.img < data
expect_error_mentions "trunc.img"
expect_error_mentions "past the end\|beyond\|truncated\|too small"
[[ $(checksum_files a.img trunc.img) == "$before" ]] || fail "truncated: something was written"
pass "truncated member refused"

# Members from two different arrays.
before=$(checksum_files a.img c.img)
expect_status 1 "two arrays" -- "$CLI" write a.img c.img < data
expect_error_mentions "different arrays"
[[ $(checksum_files a.img c.img) == "$before" ]] || fail "two arrays: something was written"
pass "members of two arrays refused"

# A member in use by another process (it holds a POSIX write lock, which
# conflicts with our OFD lock).
python3 - a.img <<'PY' &
import fcntl, sys, time
f = open(sys.argv[1], "r+b")
fcntl.lockf(f, fcntl.LOCK_EX)
open("locked", "w").close()
time.sleep(30)
PY
holder=$!
for _ in $(seq 100); do [[ -e locked ]] && break; sleep 0.1; done
before=$(checksum_files a.img b.img)
expect_status 1 "in use" -- "$CLI" write a.img b.img < data
expect_error_mentions "in use by another process"
expect_error_mentions "a.img"
[[ $(checksum_files a.img b.img) == "$before" ]] || fail "in use: something was written"
expect_status 1 "in use (create --force)" -- "$CLI" create --level=1 --raid-devices=2 --force a.img b.img
[[ $(checksum_files a.img b.img) == "$before" ]] || fail "in use: create wrote something"
kill $holder; wait $holder 2>/dev/null || true
pass "member in use by another process refused"

# create over an existing array without --force: refused, nothing written.
before=$(checksum_files a.img b.img)
expect_status 1 "create over array" -- "$CLI" create --level=1 --raid-devices=2 a.img b.img
expect_error_mentions "--force"
[[ $(checksum_files a.img b.img) == "$before" ]] || fail "create over array: something was written"
pass "create over an existing array needs --force"

# A filesystem signature (ext4) is refused too.
if command -v mkfs.ext4 >/dev/null; then
  truncate -s 16M fs.img && mkfs.ext4 -q -F fs.img
  truncate -s 16M e.img
  before=$(checksum_files fs.img)
  expect_status 1 "create over ext4" -- "$CLI" create --level=1 --raid-devices=2 fs.img e.img
  expect_error_mentions "ext4"
  [[ $(checksum_files fs.img) == "$before" ]] || fail "create over ext4: something was written"
  pass "create over an ext4 image refused"
fi

# Bad usage: exit 2 with the problem named.
expect_status 2 "unknown option" -- "$CLI" detail --frobnicate a.img
expect_error_mentions "frobnicate"
expect_status 2 "bad level" -- "$CLI" create --level=7 --raid-devices=2 --create-files=16M x.img y.img
expect_error_mentions "level"
[[ ! -e x.img ]] || fail "bad level: a file was created"
expect_status 2 "bad chunk" -- "$CLI" create --level=10 --raid-devices=4 --chunk=3K --create-files=16M w1 w2 w3 w4
expect_error_mentions "chunk"
expect_status 2 "count mismatch" -- "$CLI" create --level=1 --raid-devices=3 --create-files=16M x.img y.img
expect_error_mentions "raid-devices"
expect_status 2 "missing length" -- "$CLI" read --offset=0 a.img b.img
expect_error_mentions "length"
expect_status 2 "bad size" -- "$CLI" read --offset=12Q --length=1 a.img b.img
expect_error_mentions "offset"
expect_status 2 "unknown command" -- "$CLI" frob
pass "bad usage exits 2 with a message"

# Missing target without --create-files: nothing created.
expect_status 1 "missing file" -- "$CLI" create --level=1 --raid-devices=2 nosuch1.img nosuch2.img
expect_error_mentions "does not exist"
[[ ! -e nosuch1.img && ! -e nosuch2.img ]] || fail "missing file: something was created"
pass "missing member files refused"
