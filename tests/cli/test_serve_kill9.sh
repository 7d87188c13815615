#!/usr/bin/env bash
# kill -9 of the server while a filesystem on it is being written: every
# file fsynced before the kill reads back equal after the array's resync
# (the unclean stop's normal path), and once the journal has replayed
# (a mount), e2fsck -fn finds nothing.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
source "$HERE/serve_lib.sh"
need_fuse_filesystem
need_tool python3

"$CLI" create --level=1 --raid-devices=2 --create-files=96M m0.img m1.img >/dev/null 2>&1
mkdir -p fuse mnt
MOUNTS=("$WORK/mnt")
start_serve serve.log --nbd=unix:"$WORK/s.sock" --fuse="$WORK/fuse" m0.img m1.img
wait_for_line serve.log "file: " 30 || { cat serve.log >&2; fail "no FUSE file"; }
LOOP=$(losetup -f --show fuse/array)
LOOPS=("$LOOP")
mkfs.ext4 -q "$LOOP" && mount "$LOOP" mnt || fail "mkfs + mount"

# The writer: files of random sizes, each fsynced (file and directory);
# a file's name and checksum go to fsynced.txt (outside the filesystem)
# only once its fsync returned.
python3 - "$WORK/mnt" "$WORK/fsynced.txt" <<'PY' &
import hashlib, os, random, sys
root, log = sys.argv[1], open(sys.argv[2], "w")
rng = random.Random(27)
dfd = os.open(root, os.O_RDONLY)
for i in range(100000):
    data = rng.randbytes(rng.randint(1, 192) * 1024)
    name = f"f{i}"
    try:
        with open(os.path.join(root, name), "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.fsync(dfd)
    except OSError:
        break
    log.write(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
    log.flush()
PY
WRITER=$!
for _ in $(seq 1 100); do [[ -s fsynced.txt && $(wc -l <fsynced.txt) -ge 40 ]] && break; sleep 0.1; done
kill -9 "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
SERVE_PID=
exec 9>&-
KILLED_AT=$(wc -l <fsynced.txt)
[[ $KILLED_AT -ge 1 ]] || fail "nothing was fsynced before the kill"
# The writer ends on its first I/O error; the filesystem is unmounted and
# the FUSE daemon (the killed server's child) stopped.
for _ in $(seq 1 100); do kill -0 $WRITER 2>/dev/null || break; sleep 0.1; done
kill -9 $WRITER 2>/dev/null || true
umount mnt 2>/dev/null || umount -l mnt
losetup -d "$LOOP"
LOOPS=()
pkill -TERM -f "mountpoint=$WORK/fuse/array" || true
for _ in $(seq 1 50); do mountpoint -q fuse/array || break; sleep 0.1; done
mountpoint -q fuse/array && fusermount3 -u fuse/array
pass "server killed with $KILLED_AT files fsynced"

# Served again: the array was not stopped cleanly, so md's resync runs.
start_serve serve2.log --nbd=unix:"$WORK/s.sock" --fuse="$WORK/fuse" m0.img m1.img
wait_for_line serve2.log "resync: finished" 60 || { cat serve2.log >&2; fail "no resync after the unclean stop"; }
verify_fs_on_fuse serve2.log "$WORK/fsynced.txt" "after the kill"
stop_serve 0
pass "resynced; $KILLED_AT fsynced files equal; e2fsck -fn clean after the journal replay"
