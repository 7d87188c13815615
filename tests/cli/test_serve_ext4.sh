#!/usr/bin/env bash
# A real ext4 on a served RAID5, on a kernel without nbd: serve --fuse
# gives the export as a file, losetup + mkfs.ext4 + mount; 200 files of
# random sizes with known checksums; unmount, stop, serve again, mount:
# every checksum equal, and e2fsck -fn clean.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
source "$HERE/serve_lib.sh"
need_fuse_filesystem

"$CLI" create --level=5 --raid-devices=4 --chunk=64K --create-files=48M m0.img m1.img m2.img m3.img >/dev/null 2>&1
mkdir -p fuse mnt
MOUNTS=("$WORK/mnt")
start_serve serve.log --nbd=unix:"$WORK/s.sock" --fuse="$WORK/fuse" m0.img m1.img m2.img m3.img
wait_for_line serve.log "file: " 30 || { cat serve.log >&2; fail "no FUSE file"; }
LOOP=$(losetup -f --show fuse/array)
LOOPS=("$LOOP")
mkfs.ext4 -q "$LOOP" || fail "mkfs.ext4"
mount "$LOOP" mnt || fail "mount"
RANDOM=27
for i in $(seq 1 200); do
  mkdir -p "mnt/d$((i % 10))"
  head -c $((RANDOM * 8 + i)) /dev/urandom >"mnt/d$((i % 10))/f$i"
done
(cd mnt && find . -type f | sort | xargs sha256sum) >sums
[[ $(wc -l <sums) == 200 ]] || fail "200 files written"
umount mnt
losetup -d "$LOOP"
stop_serve 0
pass "ext4 made and 200 files written through the FUSE file; stopped cleanly"

start_serve serve2.log --nbd=unix:"$WORK/s.sock" --fuse="$WORK/fuse" m0.img m1.img m2.img m3.img
verify_fs_on_fuse serve2.log "$WORK/sums" "served again"
stop_serve 0
pass "served again: 200 checksums equal, e2fsck -fn clean"
