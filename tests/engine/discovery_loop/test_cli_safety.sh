#!/usr/bin/env bash
# The safety matrix and the device listing through raidscope-cli, on real
# loop devices: create refuses a loop device holding ext4 without --force
# and a mounted one even with it, refuses a loop device of another array,
# a second engine on members already open is refused naming the process,
# `devices --json` lists the loop devices with their size and rotational
# flag, `devices --watch` reports a loop device attached and detached.
# Needs root and loop devices: exits 77 (skipped) otherwise. Every loop
# device, mount and process it makes is undone when it ends.
cli_path=$(realpath "${1:?usage: $0 path/to/raidscope-cli}")  # before lib.sh changes directory
# shellcheck source=../../cli/lib.sh
source "$(dirname "$(realpath "$0")")/../../cli/lib.sh"  # WORK (now the current directory), fail, pass, expect_status
CLI=$cli_path

skip() { echo "SKIPPED: $*" >&2; exit 77; }
((EUID == 0)) || skip "needs root to set up loop devices"
for tool in losetup mkfs.ext4 mount python3 mkfifo; do
  command -v $tool >/dev/null || skip "$tool is not installed"
done

LOOPS=()
MOUNTED=""
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  [[ -n $MOUNTED ]] && { umount "$MOUNTED" 2>/dev/null || umount -l "$MOUNTED" 2>/dev/null || true; }
  for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# attach FILE: a loop device over FILE in $LOOP (other sessions take loop
# devices too, so losetup -f may lose a race: try a few times).
attach() {
  LOOP=""
  for _ in 1 2 3 4 5; do
    LOOP=$(losetup -f --show "$1" 2>/dev/null) && break
    LOOP=""
  done
  [[ -n $LOOP ]] || return 1
  LOOPS+=("$LOOP")
}
detach() {
  losetup -d "$1"
  local kept=()
  for l in "${LOOPS[@]}"; do [[ $l == "$1" ]] || kept+=("$l"); done
  LOOPS=("${kept[@]}")
}

# mentions TEXT: the last command's stderr says TEXT (taken literally).
mentions() { grep -qF -- "$1" "$WORK/last.err" || { cat "$WORK/last.err" >&2; fail "message does not mention '$1'"; }; }

# device_field LOOP EXPR: a Python expression over the device's JSON object `d`.
device_field() {
  "$CLI" devices --json >"$WORK/devices.json"
  python3 - "$WORK/devices.json" "$(basename "$1")" "$2" <<'PY'
import json, sys
devices = json.load(open(sys.argv[1]))
d = next((x for x in devices if x["name"] == sys.argv[2]), None)
if d is None:
    sys.exit("device %s not listed" % sys.argv[2])
print(eval(sys.argv[3]))
PY
}

for f in a b c d e; do truncate -s 40M $f.img; done
attach a.img || skip "losetup could not attach a loop device (no loop support here?)"
LA=$LOOP
attach b.img || fail "second loop device"
LB=$LOOP
attach c.img || fail "third loop device"
LC=$LOOP

# --- devices --json: size and rotational as sysfs says ---
disk=$(stat -c '%Hd:%Ld' a.img)
want_rot=$(cat /sys/dev/block/$disk/queue/rotational 2>/dev/null || cat /sys/dev/block/$disk/../queue/rotational)
[[ $(device_field $LA 'd["size_bytes"]') == $((40 << 20)) ]] || fail "devices --json: size of $LA"
[[ $(device_field $LA 'int(d["rotational"])') == "$want_rot" ]] || fail "devices --json: rotational of $LA (want $want_rot)"
[[ $(device_field $LA 'd["loop_backing"]') == "$WORK/a.img" ]] || fail "devices --json: backing file of $LA"
[[ $(device_field $LA 'd["status"]') == free ]] || fail "devices --json: a blank loop device is free"
pass "devices --json lists $LA: 40 MiB, rotational $want_rot, over a.img, free"

# --- a loop device holding ext4: refused without --force, nothing written ---
mkfs.ext4 -q -F "$LB"
before=$(sha256sum b.img c.img)
expect_status 1 "create on ext4" -- "$CLI" create --level=1 --raid-devices=2 "$LB" "$LC"
mentions "$LB"
mentions "ext4"
mentions "--force"
[[ $(sha256sum b.img c.img) == "$before" ]] || fail "a refused create wrote something"
[[ $(device_field $LB 'd["status"]') == needs_force ]] || fail "devices: ext4 loop device should need --force"
[[ $(device_field $LB 'd["reasons"][0]["reason"]') == "holds an ext4 signature" ]] || fail "devices: the ext4 reason"
pass "create on a loop device holding ext4 refused without --force, nothing written"

# --- mounted: refused even with --force ---
mkdir mnt
mount "$LB" mnt || skip "cannot mount ext4 here"
MOUNTED=$WORK/mnt
expect_status 1 "create --force on a mounted device" -- "$CLI" create --force --level=1 --raid-devices=2 "$LB" "$LC"
mentions "mounted at $WORK/mnt"
[[ $(device_field $LB 'd["status"]') == refused ]] || fail "devices: a mounted loop device is refused"
umount mnt
MOUNTED=""
pass "create on a mounted loop device refused even with --force"

# --- a loop device of another array ---
attach d.img || fail "fourth loop device"
LD=$LOOP
attach e.img || fail "fifth loop device"
LE=$LOOP
expect_status 0 "create the first array" -- "$CLI" create --level=1 --raid-devices=2 "$LD" "$LE"
uuid=$(device_field $LD 'd["md"]["array_uuid"]')
[[ $(device_field $LD 'd["md"]["role"]') == "active 0 of 2" ]] || fail "devices: md role of $LD"
[[ $(device_field $LD 'd["status"]') == needs_force ]] || fail "devices: a stopped array's member needs --force"
before=$(sha256sum c.img d.img)
expect_status 1 "create over another array's member" -- "$CLI" create --level=1 --raid-devices=2 "$LD" "$LC"
mentions "$LD"
mentions "$uuid"
[[ $(sha256sum c.img d.img) == "$before" ]] || fail "a refused create wrote something"
pass "create on a loop device of another array ($uuid) refused"

# --- two engines on the same members: the second is refused, naming the first ---
# hold MEMBER...: a first engine (`write`, waiting on a FIFO) holds the
# members open; $first is its pid. release: it reads EOF and ends. The
# refusal names it as "pid N (raidscope-cli)", or among "pids ..." when
# another test probes the same device at that moment (ctest runs in parallel).
hold() {
  rm -f feed
  mkfifo feed
  exec 3<>feed  # keeps the writer's stdin open (and its read blocking) until closed
  "$CLI" write "$@" <feed >/dev/null 2>"$WORK/first.err" 3>&- &
  first=$!
  PIDS+=("$first")
  for _ in $(seq 100); do
    ls -l /proc/$first/fd 2>/dev/null | grep -q -- "$1\$" && return 0
    sleep 0.1
  done
  cat first.err >&2
  fail "the first engine did not open $1"
}
release() {
  exec 3>&-
  wait "$first" || { cat first.err >&2; fail "the first engine failed"; }
  PIDS=()
}

hold "$LD" "$LE"
expect_status 1 "a second assemble" -- "$CLI" check "$LD" "$LE"
mentions "$first (raidscope-cli)"
expect_status 1 "create --force over an open member" -- "$CLI" create --force --level=1 --raid-devices=2 "$LD" "$LC"
mentions "$first (raidscope-cli)"
[[ $(device_field $LD 'd["status"]') == refused ]] || fail "devices: a member open by an engine is refused"
device_field $LD '[r["reason"] for r in d["reasons"]]' | grep -qF "$first (raidscope-cli)" ||
  fail "devices: the holder is not named"
release
pass "a second engine on open loop devices refused, naming pid $first (raidscope-cli)"

# The same with image files (an OFD lock instead of O_EXCL).
expect_status 0 "create an array of image files" -- "$CLI" create --level=1 --raid-devices=2 --create-files=40M \
  "$WORK/f0.img" "$WORK/f1.img"
hold "$WORK/f0.img" "$WORK/f1.img"
expect_status 1 "a second assemble of image files" -- "$CLI" check "$WORK/f0.img" "$WORK/f1.img"
mentions "$WORK/f0.img"
mentions "$first (raidscope-cli)"
release
pass "a second engine on open image files refused, naming pid $first (raidscope-cli)"

# --- devices --watch: a loop device attached and detached ---
"$CLI" devices --watch >watch.out 2>watch.err &
watcher=$!
PIDS+=("$watcher")
for _ in $(seq 100); do grep -q "watching" watch.err && break; sleep 0.1; done
grep -q "watching" watch.err || { cat watch.err >&2; fail "devices --watch did not start"; }
truncate -s 8M w.img
attach w.img || fail "loop device for the watch"
LW=$LOOP
name=$(basename "$LW")
for _ in $(seq 100); do grep -q "^attached $name " watch.out && break; sleep 0.1; done
grep -q "^attached $name 8.0M over $WORK/w.img" watch.out || { cat watch.out watch.err >&2; fail "no attach event for $name"; }
detach "$LW"
for _ in $(seq 100); do grep -q "^detached $name" watch.out && break; sleep 0.1; done
grep -q "^detached $name" watch.out || { cat watch.out watch.err >&2; fail "no detach event for $name"; }
kill -INT "$watcher"
wait "$watcher" || fail "devices --watch did not end cleanly on SIGINT"
PIDS=()
grep -q "kernel uevents\|udev uevents" watch.err || fail "devices --watch does not say which uevent source it uses"
pass "devices --watch reported $name attached and detached ($(grep -o '[a-z]* uevents' watch.err))"
