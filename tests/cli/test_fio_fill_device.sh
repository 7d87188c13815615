#!/usr/bin/env bash
# fio's fill_device (fill_fs) through raidscope-cli bench, on a real
# filesystem: a small ext4 image mounted by loop, filled until ENOSPC. The
# figures expected come from statvfs (stat -f) before the run, never from
# RaidScope: a write job writes the filesystem's free blocks (f_bfree: we
# run as root, which may fill the reserved blocks too, as fio does) less
# what ext4 spends on the file's extent blocks, in whole 1 MiB blocks, ends
# with exit 0 and no error, and leaves the filesystem full; a read job lays
# the file out the same way, then reads it; a missing directory is refused
# by name with nothing created; a block device is written to its size.
# Where fio is installed, its bytes on a fresh copy of the same filesystem
# agree with ours. Needs root and mount -o loop: exits 77 (skipped) if not.
cli_path=$(realpath "${1:?usage: $0 path/to/raidscope-cli}")  # before lib.sh changes directory
source "$(dirname "$0")/lib.sh"                               # WORK (the current directory), fail, pass, expect_status
CLI=$cli_path

skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}
((EUID == 0)) || skip "needs root to mount a small filesystem by loop"
for tool in mkfs.ext4 mount umount losetup python3 truncate; do
  command -v $tool >/dev/null || skip "$tool is not installed"
done

MNT=""
LOOP=""
cleanup() {
  [[ -n $MNT ]] && { umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true; }
  [[ -n $LOOP ]] && losetup -d "$LOOP" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

MiB=$((1 << 20))
# fresh_fs NAME: a new 48 MiB ext4 (1 KiB blocks, as mkfs makes it this
# small) mounted at $WORK/NAME, in MNT; the previous one is unmounted.
# mount -o loop may lose a race for a loop device: tried a few times; the
# first one failing means this machine cannot do it (skipped).
FIRST_FS=1
fresh_fs() {
  [[ -n $MNT ]] && { umount "$MNT"; MNT=""; }
  truncate -s 48M "$1.img"
  mkfs.ext4 -q -F "$1.img"
  mkdir "$1"
  local ok=""
  for _ in 1 2 3 4 5; do
    mount -o loop "$1.img" "$1" 2>/dev/null && { ok=1; break; }
    sleep 0.2
  done
  [[ -n $ok ]] || { ((FIRST_FS)) && skip "mount -o loop is not possible here"; fail "mount -o loop $1.img failed"; }
  FIRST_FS=0
  MNT=$WORK/$1
}
# free_bytes DIR: f_bfree x f_frsize, what root may still write there.
free_bytes() { stat -f -c '%f %S' "$1" | awk '{ print $1 * $2 }'; }
avail_bytes() { stat -f -c '%a %S' "$1" | awk '{ print $1 * $2 }'; }
# job_field FILE EXPR: a Python expression over the first job `j` of a
# JSON report (fio may print its messages before the JSON).
job_field() {
  python3 - "$1" "$2" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
j = json.loads(text[text.index("{"):])["jobs"][0]
print(eval(sys.argv[2]))
PY
}
# ext4's own cost of a 40 MiB file on 1 KiB blocks is a few extent-tree
# blocks (KiBs); the last 1 MiB write then fails with less than 1 MiB free.
# So a fill writes between free - 2 MiB and free.
check_fill() {  # check_fill WHAT WRITTEN FREE_BEFORE
  local what=$1 written=$2 free=$3
  ((written <= free)) || fail "$what: wrote $written bytes, more than the $free free"
  ((free - written < 2 * MiB)) || fail "$what: wrote $written bytes of $free free (more than 2 MiB short)"
  ((written % MiB == 0)) || fail "$what: $written bytes is not whole 1 MiB blocks"
}

# --- A write job fills the filesystem, ends with exit 0 and no error.
fresh_fs w
free=$(free_bytes "$MNT")
expect_status 0 "fill_device write" -- \
  "$CLI" bench --name=f --filename="$MNT/f" --rw=write --bs=1M --fill_device=1 --direct=1 --output-format=json
[[ $(job_field last.out 'j["error"]') == 0 ]] || fail "fill_device write: the job reports an error"
grep -qi "error" last.err && { cat last.err >&2; fail "fill_device write: an error was printed"; }
grep -q "until its filesystem is full" last.out || { cat last.out >&2; fail "fill_device write: no note"; }
written=$(job_field last.out 'j["write"]["io_bytes"]')
check_fill "fill_device write" "$written" "$free"
[[ $(stat -c %s "$MNT/f") == "$written" ]] || fail "the file's size is not what was written"
after=$(free_bytes "$MNT")
((after < MiB + 64 * 1024)) || fail "the filesystem is not full afterwards ($after bytes free)"
[[ $(avail_bytes "$MNT") == 0 ]] || fail "the filesystem still offers space to non-root users"
pass "fill_device=1 write: $written bytes of $free free, exit 0, no error, $after bytes left"
ours_write=$written

# The same in the text output: err= 0, and fio's alias fill_fs.
fresh_fs t
expect_status 0 "fill_fs write (text)" -- \
  "$CLI" bench --name=f --filename="$MNT/f" --rw=write --bs=1M --fill_fs=1 --direct=1
grep -q "err= 0" last.out || { cat last.out >&2; fail "fill_fs: the text output has no 'err= 0'"; }
pass "fill_fs=1 (fio's alias): err= 0 in the text output"

# --- size= still bounds the job; a size beyond the free space ends at ENOSPC cleanly.
fresh_fs s
expect_status 0 "fill_device size=8M" -- "$CLI" bench --name=f --filename="$MNT/f" --rw=write --bs=1M \
  --fill_device=1 --direct=1 --size=8M --output-format=json
[[ $(job_field last.out 'j["write"]["io_bytes"]') == $((8 * MiB)) ]] || fail "size=8M did not write 8 MiB"
rm "$MNT/f"
free=$(free_bytes "$MNT")
expect_status 0 "fill_device size=100M" -- "$CLI" bench --name=f --filename="$MNT/f" --rw=write --bs=1M \
  --fill_device=1 --direct=1 --size=100M --output-format=json
[[ $(job_field last.out 'j["error"]') == 0 ]] || fail "size=100M: the job reports an error"
check_fill "fill_device size=100M" "$(job_field last.out 'j["write"]["io_bytes"]')" "$free"
pass "fill_device=1 with size=: 8M writes 8 MiB; 100M on a 48M filesystem stops at ENOSPC, no error"

# --- A read job: the file is laid out until the filesystem is full, then read.
fresh_fs r
free=$(free_bytes "$MNT")
expect_status 0 "fill_device read" -- \
  "$CLI" bench --name=f --filename="$MNT/f" --rw=read --bs=1M --fill_device=1 --direct=1 --output-format=json
grep -q "laid out $MNT/f" last.out || { cat last.out >&2; fail "fill_device read: no layout note"; }
size=$(stat -c %s "$MNT/f")
((size <= free && free - size < 2 * MiB)) || fail "fill_device read: laid out $size bytes of $free free"
read_bytes=$(job_field last.out 'j["read"]["io_bytes"]')
[[ $read_bytes == $((size / MiB * MiB)) ]] || fail "fill_device read: read $read_bytes of a $size byte file"
[[ $(job_field last.out 'j["error"]') == 0 ]] || fail "fill_device read: the job reports an error"
pass "fill_device=1 read: laid out $size bytes of $free free, then read $read_bytes"

# --- A missing directory is refused by name; nothing is created.
expect_status 1 "fill_device in a missing directory" -- \
  "$CLI" bench --name=f --filename="$MNT/nodir/f" --rw=write --bs=1M --fill_device=1
expect_error_mentions "directory $MNT/nodir does not exist"
[[ ! -e $MNT/nodir ]] || fail "the missing directory was created"
pass "fill_device=1 in a missing directory: refused, naming it; nothing created"

# --- A block device: its size, said in a note (no ENOSPC comes there).
umount "$MNT"
MNT=""
truncate -s 8M dev.img
LOOP=$(losetup -f --show dev.img) || fail "no loop device for dev.img"
expect_status 0 "fill_device on a block device" -- \
  "$CLI" bench --name=f --filename="$LOOP" --rw=write --bs=1M --fill_device=1 --direct=1 --output-format=json
[[ $(job_field last.out 'j["write"]["io_bytes"]') == $((8 * MiB)) ]] || fail "block device: not 8 MiB written"
grep -q "fill_device=1 on a block device (8 MiB)" last.out || { cat last.out >&2; fail "block device: no note"; }
losetup -d "$LOOP"
LOOP=""
pass "fill_device=1 on a block device: its 8 MiB, said in a note"

# --- fio on a fresh copy of the same filesystem: the same bytes, within 3 %.
if command -v fio >/dev/null; then
  fresh_fs fio
  free=$(free_bytes "$MNT")
  expect_status 0 "fio fill_device" -- \
    fio --name=f --filename="$MNT/f" --rw=write --bs=1M --fill_device=1 --direct=1 --output-format=json
  fio_write=$(job_field last.out 'j["write"]["io_bytes"]')
  [[ $(job_field last.out 'j["error"]') == 0 ]] || fail "fio fill_device: fio reports an error"
  check_fill "fio's fill_device write" "$fio_write" "$free"
  diff=$((ours_write > fio_write ? ours_write - fio_write : fio_write - ours_write))
  ((diff * 100 <= fio_write * 3)) || fail "ours wrote $ours_write bytes, fio $fio_write"
  pass "fio 3.33 on the same filesystem: $fio_write bytes, ours $ours_write"
else
  echo "fio is not installed: the comparison with fio is left out"
fi
