# Sourced by the fio comparison scripts: their work directory, and for
# TARGET=ram the target itself, an ext4 on a loop
# device over an image in /dev/shm, so both tools run on a device whose
# speed does not drift (this host's virtio disk swings 25k-100k IOPS from
# minute to minute). Needs root and a free loop device; otherwise the
# calling script exits 77 (skipped).
#
# While it is up, the guest's cpuidle halt polling is held at 200 us
# (/sys/module/haltpoll), and put back afterwards (HALTPOLL=keep leaves it
# alone: a script comparing two builds of ours on a shared machine). Why: at ~30 us per I/O
# the time a halted vCPU takes to wake decides the IOPS, and with polling
# off (this host's default) that time depends on the host's adaptive
# halt polling. fio spins ~0.15 s on clock_gettime (its clock set-up)
# before a job starts, which leaves the host polling, and its first ~0.35 s ran at 250-316k IOPS
# and then at 120k, where ours (no spin) ran at 120k from the start. With
# polling held, both run at 283-292k (gtod-reduce.fio, 2 s time based).
#
#   bench_workdir NAME DISK_PARENT RAM_MIB
#                            -> sets BENCH_WORK: a fresh directory NAME.XXXXXX
#                               in DISK_PARENT, or with TARGET=ram on a RAM
#                               target of RAM_MIB; an EXIT trap removes both
#   ram_target_up SIZE_MIB   -> sets RAM_MNT (the mounted directory)
#   ram_target_down          (idempotent; a no-op when nothing is up)
#
#   RAM_MKFS_OPTS, RAM_MOUNT_OPTS   extra mkfs.ext4 options and mount options
#                            (default: none, ext4's defaults). A script that
#                            compares two builds of ours may drop the journal
#                            (-O ^has_journal) and timestamp writes
#                            (noatime,lazytime): both builds run on the same
#                            target, and the journal's commit every 5 s and
#                            an inode update per write tick are then no part
#                            of the figures.

RAM_IMG="" RAM_LOOP="" RAM_MNT="" RAM_HALTPOLL_SAVED=""
RAM_HALTPOLL=/sys/module/haltpoll/parameters

ram_target_up() {
  local mib=$1
  [[ $(id -u) == 0 ]] || { echo "TARGET=ram needs root (loop device, mount): skipped" >&2; exit 77; }
  command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null ||
    { echo "TARGET=ram needs mkfs.ext4 and losetup: skipped" >&2; exit 77; }
  local free_mib
  free_mib=$(df -Pm /dev/shm | awk 'NR==2 {print $4}')
  ((free_mib > mib + 512)) || { echo "/dev/shm has $free_mib MiB free, TARGET=ram needs $((mib + 512))" >&2; exit 2; }
  RAM_IMG=$(mktemp /dev/shm/raidscope-bench.XXXXXX)
  truncate -s "${mib}M" "$RAM_IMG"
  # shellcheck disable=SC2086  # option words
  mkfs.ext4 -q -F ${RAM_MKFS_OPTS:-} "$RAM_IMG"
  RAM_LOOP=$(losetup -f --show "$RAM_IMG" 2>/dev/null) || { echo "no loop device: skipped" >&2; exit 77; }
  RAM_MNT=$(mktemp -d /tmp/raidscope-bench-mnt.XXXXXX)
  mount ${RAM_MOUNT_OPTS:+-o "$RAM_MOUNT_OPTS"} "$RAM_LOOP" "$RAM_MNT"
  if [[ ${HALTPOLL:-hold} == hold && -w $RAM_HALTPOLL/guest_halt_poll_ns ]]; then
    RAM_HALTPOLL_SAVED="$(cat "$RAM_HALTPOLL/guest_halt_poll_ns") $(cat "$RAM_HALTPOLL/guest_halt_poll_allow_shrink")"
    echo 200000 >"$RAM_HALTPOLL/guest_halt_poll_ns"
    echo N >"$RAM_HALTPOLL/guest_halt_poll_allow_shrink"
    echo "target: ext4${RAM_MKFS_OPTS:+ ($RAM_MKFS_OPTS)}${RAM_MOUNT_OPTS:+ mounted $RAM_MOUNT_OPTS} on $RAM_LOOP over $RAM_IMG; guest halt polling held at 200 us while it runs" >&2
  else
    echo "target: ext4${RAM_MKFS_OPTS:+ ($RAM_MKFS_OPTS)}${RAM_MOUNT_OPTS:+ mounted $RAM_MOUNT_OPTS} on $RAM_LOOP over $RAM_IMG (idle wake-ups left as they are: no haltpoll here, or HALTPOLL=keep)" >&2
  fi
}

bench_workdir() {
  local name=$1 parent=$2 ram_mib=$3
  trap 'rm -rf -- "${BENCH_WORK:-}"; ram_target_down' EXIT
  case ${TARGET:-disk} in
    disk) ;;
    ram)
      ram_target_up "$ram_mib"
      parent=$RAM_MNT
      ;;
    *) echo "TARGET must be disk or ram, not '$TARGET'" >&2; exit 2 ;;
  esac
  BENCH_WORK=$(mktemp -d "$parent/$name.XXXXXX")
  [[ $(stat -f -c %T "$BENCH_WORK") != tmpfs ]] ||
    { echo "$BENCH_WORK is on tmpfs (O_DIRECT); pass a WORKDIR on a real disk" >&2; exit 2; }
}

ram_target_down() {
  if [[ -n $RAM_HALTPOLL_SAVED ]]; then
    local ns shrink
    read -r ns shrink <<<"$RAM_HALTPOLL_SAVED"
    echo "$ns" >"$RAM_HALTPOLL/guest_halt_poll_ns"
    echo "$shrink" >"$RAM_HALTPOLL/guest_halt_poll_allow_shrink"
    RAM_HALTPOLL_SAVED=""
  fi
  if [[ -n $RAM_MNT ]]; then
    cd /  # the caller may still be inside it
    umount "$RAM_MNT" 2>/dev/null && rmdir "$RAM_MNT"
    RAM_MNT=""
  fi
  [[ -z $RAM_LOOP ]] || { losetup -d "$RAM_LOOP" 2>/dev/null; RAM_LOOP=""; }
  [[ -z $RAM_IMG ]] || { rm -f "$RAM_IMG"; RAM_IMG=""; }
}
