# Helpers for the `serve` tests (sourced after lib.sh): a server in the
# background with a FIFO on its standard input (fail/add/status/stop), its
# output in $WORK/serve.log, and a cleanup that undoes loop devices, mounts
# and FUSE files the test made, whatever happened.
SERVE_PID=
LOOPS=()
MOUNTS=()

need_tool() {
  command -v "$1" >/dev/null 2>&1 || { echo "skipped: $1 is not installed (${2:-})"; exit 77; }
}

# A filesystem on the served array: the FUSE export (qemu-storage-daemon),
# then losetup + mkfs.ext4 + mount, which need root and /dev/fuse.
need_fuse_filesystem() {
  need_tool qemu-storage-daemon "qemu-system-common: the FUSE export"
  need_tool fusermount3 "fuse3"
  need_tool mkfs.ext4 "e2fsprogs"
  [[ $EUID == 0 && -c /dev/fuse ]] || { echo "skipped: needs root and /dev/fuse (losetup, mount)"; exit 77; }
}

serve_cleanup() {
  set +e
  for m in "${MOUNTS[@]}"; do mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }; done
  for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
  [[ -n $SERVE_PID ]] && kill -TERM "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  for f in "$WORK"/fuse*/array; do [[ -e $f ]] && mountpoint -q "$f" && fusermount3 -u "$f" 2>/dev/null; done
  rm -rf "$WORK"
}
trap serve_cleanup EXIT

# start_serve LOG ARGS...: serves in the background; returns once the URI is printed.
start_serve() {
  local log=$1; shift
  rm -f "$WORK/ctl"
  mkfifo "$WORK/ctl"
  "$CLI" serve "$@" <"$WORK/ctl" >"$log" 2>&1 &
  SERVE_PID=$!
  exec 9>"$WORK/ctl"
  wait_for_line "$log" "uri: " 30 || { cat "$log" >&2; fail "serve did not start"; }
  URI=$(sed -n 's/^  uri: //p' "$log" | head -1)
}

# serve_command TEXT: one line on the server's standard input.
serve_command() { echo "$1" >&9; }

# wait_for_line FILE PATTERN SECONDS
wait_for_line() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || { grep -q -- "$2" "$1" 2>/dev/null; return; }
    sleep 0.1
  done
  return 1
}

# stop_serve [EXPECTED_STATUS]: SIGTERM, then the exit status and the clean stop.
stop_serve() {
  local want=${1:-0} rc=0
  kill -TERM "$SERVE_PID"
  wait "$SERVE_PID" || rc=$?
  exec 9>&-
  SERVE_PID=
  [[ $rc == "$want" ]] || { cat "$WORK"/serve*.log >&2; fail "serve exited $rc, expected $want"; }
}

# verify_fs_on_fuse LOG SUMS WHAT: once the server logging to LOG gives its
# FUSE file, mounts the filesystem on it, checks every file in SUMS
# (sha256sum -c), unmounts and runs e2fsck -fn; WHAT names the step in failures.
verify_fs_on_fuse() {
  wait_for_line "$1" "file: " 30 || { cat "$1" >&2; fail "$3: no FUSE file"; }
  LOOP=$(losetup -f --show fuse/array)
  LOOPS=("$LOOP")
  mount "$LOOP" mnt || fail "$3: mount (the journal replays here)"
  (cd mnt && sha256sum --quiet -c "$2") || fail "$3: a file differs from its checksum"
  umount mnt
  e2fsck -fn "$LOOP" >fsck.out 2>&1 || { cat fsck.out >&2; fail "$3: e2fsck -fn not clean"; }
  losetup -d "$LOOP"
  LOOPS=()
}
