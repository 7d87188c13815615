#!/usr/bin/env bash
# An image file its user may not write (no write permission) is refused up
# front when a command will write, blaming its owner and mode (EACCES), as
# an unprivileged user meets it; nothing is written. Needs root (to act as
# the unprivileged user nobody) and setpriv: without them, exit 77.
source "$(dirname "$0")/lib.sh"

if ((EUID != 0)) || ! command -v setpriv >/dev/null || ! getent passwd nobody >/dev/null; then
  echo "SKIPPED: needs root, setpriv and the user nobody"
  exit 77
fi
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"; }
if ! as_nobody "$CLI" --help >/dev/null 2>&1; then
  echo "SKIPPED: the user nobody cannot run $CLI (a directory on its path is closed to other users)"
  exit 77
fi

chmod 0755 "$WORK"
"$CLI" create --level=1 --raid-devices=2 --create-files=16M --bitmap=none a.img b.img >/dev/null
chmod 0444 a.img b.img
head -c 4096 /dev/urandom >data.bin
before=$(sha256sum a.img b.img)
expect_status 1 "write as a user without write permission" -- as_nobody "$CLI" write --offset=0 a.img b.img <data.bin
expect_error_mentions "a.img: Permission denied"
expect_error_mentions "mode 0444"
grep -q "immutable\|read-only filesystem" "$WORK/last.err" && fail "a mode refusal blamed on something else"
[[ $(sha256sum a.img b.img) == "$before" ]] || fail "a refused write changed the members"
expect_status 0 "read as a user with read permission" -- as_nobody "$CLI" read --offset=0 --length=4096 a.img b.img
pass "a member without write permission is refused for its mode; reading works"
