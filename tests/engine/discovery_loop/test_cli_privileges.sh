#!/usr/bin/env bash
# Without root: a block device the user may not open is refused with the
# missing permission named (the node's group and mode, how to join the
# group or use sudo) and what UDisks2 said; `devices` says what a listing
# without root cannot see. Set up as root (loop devices), then run the CLI
# as user nobody. Needs root, loop devices and setpriv: exits 77 otherwise.
set -euo pipefail
cli_path=$(realpath "${1:?usage: $0 path/to/raidscope-cli}")  # before lib.sh changes directory
# shellcheck source=../../cli/lib.sh
source "$(dirname "$(realpath "$0")")/../../cli/lib.sh"  # WORK (now the current directory), fail, pass, expect_status
CLI=$cli_path

skip() { echo "SKIPPED: $*" >&2; exit 77; }
((EUID == 0)) || skip "needs root to set up loop devices"
for tool in losetup setpriv; do command -v $tool >/dev/null || skip "$tool is not installed"; done
getent group disk >/dev/null || skip "no group 'disk' here"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
as_nobody "$CLI" --help >/dev/null 2>&1 || skip "user nobody cannot run $CLI (its directory is not readable)"

LOOPS=()
cleanup() {
  for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
for f in a b; do
  truncate -s 40M $f.img
  l=""
  for _ in 1 2 3 4 5; do l=$(losetup -f --show $f.img 2>/dev/null) && break; l=""; done
  [[ -n $l ]] || skip "losetup could not attach a loop device"
  LOOPS+=("$l")
  chown root:disk "$l"
  chmod 0660 "$l"
done
before=$(sha256sum a.img b.img)

expect_status 1 "create as nobody on root:disk 0660 devices" -- as_nobody "$CLI" create --force --level=1 \
  --raid-devices=2 "${LOOPS[0]}" "${LOOPS[1]}"
for text in "${LOOPS[0]}: Permission denied" "owned by root:disk, mode 0660" "UDisks2" \
            "add yourself to group 'disk' (sudo usermod -aG disk \$USER, then log in again)" \
            "run raidscope-cli with sudo"; do
  grep -qF -- "$text" "$WORK/last.err" || { cat "$WORK/last.err" >&2; fail "the refusal does not say '$text'"; }
done
[[ $(sha256sum a.img b.img) == "$before" ]] || fail "a refused create wrote something"
pass "create as nobody: $(head -c 400 "$WORK/last.err")"

expect_status 0 "devices as nobody" -- as_nobody "$CLI" devices
grep -qF "not running as root" "$WORK/last.err" || fail "devices as nobody does not say what it cannot see"
grep -E "^$(basename "${LOOPS[0]}") .*contents unknown: .*Permission denied" "$WORK/last.out" >/dev/null ||
  { cat "$WORK/last.out" >&2; fail "devices as nobody: an unreadable loop device is not marked 'contents unknown'"; }
pass "devices as nobody marks unreadable devices and says what it cannot see"
