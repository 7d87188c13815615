#!/usr/bin/env bash
# An immutable image file (chattr +i) is called immutable, with the way to
# clear it, not blamed on its mode or owner: root cannot write to it either.
# Skipped where the attribute cannot be set (not root, or a filesystem
# without it, such as tmpfs).
source "$(dirname "$0")/lib.sh"
"$CLI" create --level=1 --raid-devices=2 --create-files=16M a.img b.img >/dev/null
chattr +i a.img 2>/dev/null || { echo "SKIP: cannot set the immutable attribute here (needs root and ext4/xfs/btrfs)"; exit 77; }
trap 'chattr -i "$WORK/a.img" "$WORK/c.img" 2>/dev/null; rm -rf "$WORK"' EXIT
before=$(checksum_files a.img b.img)
echo data | { expect_status 1 "write with an immutable member" -- "$CLI" write a.img b.img; }
expect_error_mentions "a.img"
expect_error_mentions "immutable"
expect_error_mentions "chattr -i"
grep -q "mode 0" "$WORK/last.err" && fail "the immutable file is blamed on its mode: $(cat "$WORK/last.err")"
[[ $(checksum_files a.img b.img) == "$before" ]] || fail "something was written"
truncate -s 16M c.img && chattr +i c.img
expect_status 1 "create on an immutable file" -- "$CLI" create --level=1 --raid-devices=2 c.img b.img --force
expect_error_mentions "immutable"
pass "an immutable member is called immutable: '$(cat "$WORK/last.err")'"
