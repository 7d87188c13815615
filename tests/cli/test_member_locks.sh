#!/usr/bin/env bash
# Two engines never drive the same members, and a member that cannot be
# written is refused up front (issue 25, items 3 and 4), as a user meets
# them with raidscope-cli: a second process on loop devices over the same
# deleted files, or on the loop device under a loop device, is refused while
# the first holds them and goes ahead once it was killed (SIGKILL leaves no
# lock); storage that cannot be locked is refused unless --force, which
# then warns; a read-only loop device, an immutable file and a file on a
# read-only mount are refused naming the member and the cause, nothing
# written. Loop devices need root and losetup: without them the script
# exits 77 (skipped) after the parts that need neither.
source "$(dirname "$0")/lib.sh"

sums() { sha256sum "$@" | awk '{print $1}' | tr '\n' ' '; }

# ---- storage that cannot be locked: refused, unless --force (no root needed) ----
"$CLI" create --level=1 --raid-devices=2 --create-files=16M --bitmap=none f1.img f2.img >/dev/null
touch not-a-dir
head -c 8192 /dev/urandom >data.bin
before=$(sums f1.img f2.img)
RAIDSCOPE_LOCK_DIR=$WORK/not-a-dir/locks expect_status 1 "write with no lock directory" -- \
  "$CLI" write --offset=0 f1.img f2.img <data.bin
expect_error_mentions "cannot lock"
expect_error_mentions "not-a-dir/locks"
expect_error_mentions "--force uses it anyway"
[[ $(sums f1.img f2.img) == "$before" ]] || fail "a refused write changed the members"
RAIDSCOPE_LOCK_DIR=$WORK/not-a-dir/locks expect_status 0 "write --force with no lock directory" -- \
  "$CLI" write --force --offset=0 f1.img f2.img <data.bin
expect_error_mentions "warning: .*used anyway (--force)"
pass "storage that cannot be locked: refused, --force uses it and warns"

if ((EUID != 0)) || ! command -v losetup >/dev/null; then
  echo "SKIPPED: the rest needs root and losetup (loop devices)"
  exit 77
fi

LOOPS=()
cleanup() {
  set +e  # undo everything, whatever fails on the way
  [[ -n ${HOLDER:-} ]] && kill -9 "$HOLDER" 2>/dev/null && wait "$HOLDER" 2>/dev/null
  mountpoint -q "$WORK/ro" 2>/dev/null && { umount "$WORK/ro" || umount -l "$WORK/ro"; }
  [[ -f $WORK/i.img ]] && chattr -i "$WORK/i.img" 2>/dev/null
  local i
  for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do losetup -d "${LOOPS[i]}" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
attach() {  # attach [losetup options] FILE: the new loop device's path in $LOOP
  local out
  for _ in 1 2 3 4 5; do
    out=$(losetup -f --show "$@" 2>/dev/null) && [[ $out == /dev/loop* ]] && break
    out=""
  done
  [[ -n $out ]] || { echo "SKIPPED: losetup could not attach a loop device"; exit 77; }
  LOOPS+=("$out")
  LOOP=$out
}

# ---- two loop devices over each of two files, the files then deleted ----
truncate -s 32M u1.img u2.img
attach u1.img; A1=$LOOP
attach u2.img; A2=$LOOP
attach u1.img; B1=$LOOP
attach u2.img; B2=$LOOP
rm u1.img u2.img
"$CLI" create --level=1 --raid-devices=2 --bitmap=none "$A1" "$A2" >/dev/null
"$CLI" bench --array="$A1,$A2" --name=hold --rw=randwrite --bs=4k --size=8m --time_based --runtime=60 \
  >holder.out 2>&1 &
HOLDER=$!
refused=""
for _ in $(seq 1 100); do  # until the holder has its members (at most 10 s)
  set +e
  "$CLI" bench --array="$B1,$B2" --name=second --rw=randwrite --bs=4k --size=1m >second.out 2>second.err
  rc=$?
  set -e
  if ((rc != 0)) && grep -q "in use by another process" second.err; then refused=1; break; fi
  kill -0 "$HOLDER" 2>/dev/null || { cat holder.out; fail "the first bench ended early"; }
  sleep 0.1
done
[[ -n $refused ]] || { cat second.out second.err; fail "a second engine on the same (deleted) files was not refused"; }
grep -q "(deleted)" second.err || { cat second.err; fail "the refusal does not name the deleted file"; }
grep -q "pid $HOLDER" second.err || { cat second.err; fail "the refusal does not name the holder, pid $HOLDER"; }
kill -9 "$HOLDER"
wait "$HOLDER" 2>/dev/null || true
HOLDER=""
expect_status 0 "the second engine once the first was killed" -- \
  "$CLI" bench --array="$B1,$B2" --run --name=after --rw=randwrite --bs=4k --size=1m
pass "a second process on loop devices over the same deleted files is refused; SIGKILL leaves no lock"

# ---- a loop device over a loop device ----
truncate -s 32M x.img y.img y2.img
attach x.img; LOWER=$LOOP
attach "$LOWER"; UPPER=$LOOP
"$CLI" create --level=1 --raid-devices=2 --bitmap=none "$UPPER" y.img >/dev/null
"$CLI" bench --array="$UPPER,y.img" --name=hold --rw=randwrite --bs=4k --size=8m --time_based --runtime=60 \
  >holder.out 2>&1 &
HOLDER=$!
refused=""
for _ in $(seq 1 100); do
  set +e
  "$CLI" write --offset=0 "$LOWER" y2.img <data.bin >second.out 2>second.err
  rc=$?
  set -e
  if ((rc != 0)) && grep -q "in use by another process" second.err; then refused=1; break; fi
  sleep 0.1
done
[[ -n $refused ]] || { cat second.err; fail "an engine on the loop device under a held loop device was not refused"; }
grep -q -- "$UPPER" second.err || grep -q "pid $HOLDER" second.err || { cat second.err; fail "the refusal names no holder"; }
kill -9 "$HOLDER"
wait "$HOLDER" 2>/dev/null || true
HOLDER=""
pass "a loop device over a held loop device's storage is refused"

# ---- read-only members: refused up front, naming member and cause, nothing written ----
"$CLI" create --level=1 --raid-devices=2 --create-files=16M --bitmap=none c.img d.img >/dev/null
attach -r d.img; RO=$LOOP
before=$(sums c.img d.img)
expect_status 1 "write with a read-only loop device" -- "$CLI" write --offset=0 c.img "$RO" <data.bin
expect_error_mentions "$RO: read-only block device"
grep -q "wrote" "$WORK/last.err" && fail "a refused write says it wrote"
[[ $(sums c.img d.img) == "$before" ]] || fail "a refused write changed the members"
truncate -s 16M e.img blank.img
attach -r blank.img; RO_BLANK=$LOOP
expect_status 1 "create with a read-only loop device" -- "$CLI" create --level=1 --raid-devices=2 e.img "$RO_BLANK"
expect_error_mentions "$RO_BLANK: read-only block device"
"$CLI" examine e.img >/dev/null 2>&1 && fail "a refused create wrote a superblock to e.img"
pass "a read-only loop device is refused before anything is written"

cp --sparse=always d.img i.img
if chattr +i i.img 2>/dev/null; then
  expect_status 1 "write with an immutable member" -- "$CLI" write --offset=0 c.img i.img <data.bin
  expect_error_mentions "i.img: immutable (chattr +i)"
  grep -q "mode 0" "$WORK/last.err" && fail "an immutable file blamed on its mode"
  [[ $(sums c.img) == "${before%% *} " ]] || fail "a refused write changed c.img"
  chattr -i i.img
  pass "an immutable member is refused as immutable"
else
  echo "note: chattr +i is not supported here; the immutable case is covered where it is"
fi

mkdir ro
if mount --bind "$WORK" ro 2>/dev/null && mount -o remount,bind,ro ro 2>/dev/null; then
  expect_status 1 "write with a member on a read-only mount" -- "$CLI" write --offset=0 c.img ro/d.img <data.bin
  expect_error_mentions "ro/d.img: on a read-only filesystem ($WORK/ro is mounted read-only)"
  umount ro
  [[ $(sums c.img d.img) == "$before" ]] || fail "a refused write changed the members"
  pass "a member on a read-only mount is refused, naming the mount"
else
  umount ro 2>/dev/null || true
  echo "note: bind mounts are not possible here; the read-only mount case is covered where they are"
fi
