#!/usr/bin/env bash
# What bounds the NBD export's speed on this machine (not a test; run by
# hand inside cpu-quiet, a few minutes). For each medium in MEDIA (shm: a
# RAID1 of two files in /dev/shm, the array without a disk; disk: two files
# on the host disk) it runs fio's nbd engine, 4k randread QD32, against
#   null    nbdkit's null plugin (answers at once, reads nothing): what the
#           client takes from a server that costs almost nothing;
#   ours    raidscope-cli serve of the RAID1 (before: RS_BEFORE's build too);
# each with one connection (QD32) and with two (fio numjobs=2, QD16 each:
# fio's nbd engine opens one connection per job and has no multi-conn
# option), and `raidscope-cli bench` on the same array, same job, no NBD.
# For each run it prints IOPS and the CPU time per request of the client
# (fio's own usr+sys), of the server process (all its threads, /proc) and
# of bench, and how many of the machine's CPUs were busy meanwhile.
# With the 1 MiB section (ONE_MIB=1): 1 MiB read QD8 through our export and
# through nbdkit's file plugin on one member, bench on the array, and fio
# (io_uring, O_DIRECT, no NBD) reading one member file alone against both at
# once: whether two member files on this medium read faster than one.
# HALTPOLL_NS=200000 (root) holds the guest's cpuidle halt polling
# (/sys/module/haltpoll) at that many ns while it runs and puts it back
# after: on a VM whose idle vCPUs halt (polling 0, this host's default),
# every wake-up of a halted vCPU waits for the host, and a request through
# NBD wakes a sleeping thread three times (server, server, client) where
# bench wakes once per batch.
#
#   tests/bench/bench_nbd_bound.sh RAIDSCOPE_CLI   ROUNDS=2 RUNTIME=5 MEDIA="shm disk" ONE_MIB=1 RS_BEFORE= HALTPOLL_NS=
# Exits 77 when fio (with its nbd engine) or nbdkit is missing.
set -euo pipefail
HERE=$(dirname "$(realpath "$0")")
source "$HERE/parity_bench_lib.sh"
RS=$(realpath "${1:?usage: bench_nbd_bound.sh RAIDSCOPE_CLI}")
BEFORE=${RS_BEFORE:+$(realpath "$RS_BEFORE")}
ROUNDS=${ROUNDS:-2} RUNTIME=${RUNTIME:-5} MEDIA=${MEDIA:-shm disk} ONE_MIB=${ONE_MIB:-1}
command -v fio >/dev/null || { echo "bench_nbd_bound: fio is not installed" >&2; exit 77; }
fio --enghelp 2>/dev/null | grep -qw nbd || { echo "bench_nbd_bound: this fio has no nbd engine" >&2; exit 77; }
command -v nbdkit >/dev/null || { echo "bench_nbd_bound: nbdkit is not installed" >&2; exit 77; }
WORK=
POLL=/sys/module/haltpoll/parameters POLL_SAVED=
restore_poll() {
  [[ -n $POLL_SAVED ]] || return 0
  read -r ns shrink <<<"$POLL_SAVED"
  echo "$ns" >$POLL/guest_halt_poll_ns
  echo "$shrink" >$POLL/guest_halt_poll_allow_shrink
}
trap 'stop_server; restore_poll; [[ -z $WORK ]] || rm -rf "$WORK"' EXIT
source "$HERE/nbd_bench_lib.sh"
if [[ -n ${HALTPOLL_NS:-} ]]; then
  [[ -w $POLL/guest_halt_poll_ns ]] || { echo "bench_nbd_bound: HALTPOLL_NS needs root and $POLL" >&2; exit 77; }
  POLL_SAVED="$(cat $POLL/guest_halt_poll_ns) $(cat $POLL/guest_halt_poll_allow_shrink)"
  echo "$HALTPOLL_NS" >$POLL/guest_halt_poll_ns
  echo N >$POLL/guest_halt_poll_allow_shrink
fi
echo "guest halt polling: $(cat $POLL/guest_halt_poll_ns 2>/dev/null || echo '?') ns"

DATA_OFFSET=1048576  # where create puts the data in each member
SIZE=$((1024 << 20))
COMMON=(--runtime=$RUNTIME --time_based --size=$SIZE --randrepeat=0 --output-format=json)
JOB_4K=(--rw=randread --bs=4k)
JOB_1M=(--rw=read --bs=1M --iodepth=8)
# fio_stats JSON: "IOPS MiB/s requests CPU-seconds" of all its jobs (fio's own usr+sys).
fio_stats() {
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); J=d["jobs"]
ios=sum(j["read"]["total_ios"] for j in J)
cpu=sum((j["usr_cpu"]+j["sys_cpu"])/100*j["job_runtime"]/1000 for j in J)
print(sum(j["read"]["iops"] for j in J), sum(j["read"]["bw_bytes"] for j in J)/2**20, ios, cpu)' "$1"
}
# measured LABEL OUT PID CMD...: runs CMD (a fio or bench run writing JSON to
# OUT), then prints its figures, PID's CPU time per request meanwhile (0: no
# server) and the machine's busy CPUs.
measured() {
  local label=$1 out=$2 pid=$3
  shift 3
  local s0=0 s1=0 m0 m1
  [[ $pid == 0 ]] || s0=$(cpu_ticks "$pid")
  m0=$(machine_ticks)
  /usr/bin/time -f '%U %S' -o "$out.time" "$@" >/dev/null 2>>"$WORK/err.log"
  m1=$(machine_ticks)
  [[ $pid == 0 ]] || s1=$(cpu_ticks "$pid")
  read -r iops mibs ios cpu < <(fio_stats "$out")
  read -r tu ts <"$out.time"
  python3 - "$label" "$iops" "$mibs" "$ios" "$cpu" "$tu" "$ts" "$((s1 - s0))" "$m0" "$m1" "$(nproc)" <<'PY'
import sys
label, iops, mibs, ios, cpu, tu, ts, st = sys.argv[1:9]
mb0, mt0, mb1, mt1 = map(int, (sys.argv[9] + " " + sys.argv[10]).split())
n = int(sys.argv[11]); ios = int(ios)
per = lambda s: 1e6 * s / max(ios, 1)
busy = n * (mb1 - mb0) / max(mt1 - mt0, 1)
print("  %-22s %8.0f IOPS %7.0f MiB/s | CPU us/request: client %5.2f (process %5.2f), server %5.2f | busy CPUs %.2f of %d"
      % (label, float(iops), float(mibs), per(float(cpu)), per(float(tu) + float(ts)), per(int(st) / 100), busy, n))
PY
}
# nbd_fio URI CONNS: fio's nbd engine on URI, one connection per job.
nbd_fio() { echo fio --name=r --ioengine=nbd --uri="$1" --numjobs="$2"; }
round_4k() {
  start_nbdkit "$WORK/null.sock" null size=$SIZE
  for c in 1 2; do
    measured "null, $c conn" null$c.json "$SERVER_PID" $(nbd_fio "nbd+unix:///?socket=$WORK/null.sock" $c) \
      "${JOB_4K[@]}" --iodepth=$((32 / c)) "${COMMON[@]}" --output=null$c.json
  done
  stop_server
  local bin name order=("$RS" $BEFORE)
  ((r % 2)) || order=($BEFORE "$RS")  # which build goes first alternates
  for bin in "${order[@]}"; do
    name=ours
    [[ $bin == "$RS" ]] || name=before
    start_ours "$bin" "$WORK/rs.sock" "$DIR/m0.img" "$DIR/m1.img"
    for c in 1 2; do
      measured "$name, $c conn" $name$c.json "$SERVER_PID" $(nbd_fio "nbd+unix:///raid1?socket=$WORK/rs.sock" $c) \
        "${JOB_4K[@]}" --iodepth=$((32 / c)) "${COMMON[@]}" --output=$name$c.json
    done
    stop_server
  done
  # QD16 too: how much the array gives when half the client's requests are elsewhere (in the socket, the client).
  local qd
  for qd in 32 16; do
    measured "bench QD$qd (no NBD)" bench$qd.json 0 "$RS" bench --array="$DIR/m0.img,$DIR/m1.img" --name=r "${JOB_4K[@]}" \
      --iodepth=$qd --ioengine=io_uring --direct=1 "${COMMON[@]}" --output=bench$qd.json
  done
}
round_1m() {
  start_ours "$RS" "$WORK/rs.sock" "$DIR/m0.img" "$DIR/m1.img"
  measured "ours 1M" ours1m.json "$SERVER_PID" $(nbd_fio "nbd+unix:///raid1?socket=$WORK/rs.sock" 1) \
    "${JOB_1M[@]}" "${COMMON[@]}" --output=ours1m.json
  stop_server
  drop_cache "$DIR/m0.img"
  start_nbdkit "$WORK/kit.sock" file "$DIR/m0.img" cache=none fadvise=random
  measured "nbdkit file 1M" kit1m.json "$SERVER_PID" $(nbd_fio "nbd+unix:///?socket=$WORK/kit.sock" 1) \
    --offset=$DATA_OFFSET "${JOB_1M[@]}" "${COMMON[@]}" --output=kit1m.json
  stop_server
  # md-legacy (the default) keeps a sequential stream on one mirror; md-rr
  # spreads it over both: whether two mirrors add up on this medium.
  local policy
  for policy in md-legacy md-rr; do
    measured "bench 1M $policy" bench1m.json 0 "$RS" bench --array="$DIR/m0.img,$DIR/m1.img" --name=r "${JOB_1M[@]}" \
      --policy=$policy --ioengine=io_uring --direct=1 "${COMMON[@]}" --output=bench1m.json
  done
  local files=("$DIR/m0.img" "$DIR/m0.img:$DIR/m1.img")
  local n=1 f
  for f in "${files[@]}"; do
    # One job per file, each reading its file from the data offset: the medium's own rate.
    local args=()
    IFS=: read -ra parts <<<"$f"
    for p in "${parts[@]}"; do args+=(--name="$(basename "$p")" --filename="$p"); done
    measured "fio direct, $n file(s)" direct$n.json 0 fio --ioengine=io_uring --direct=1 --offset=$DATA_OFFSET \
      "${JOB_1M[@]}" "${COMMON[@]}" --output=direct$n.json "${args[@]}"
    n=2
  done
}

for medium in $MEDIA; do
  case $medium in
    shm) base=/dev/shm ;;
    disk) base=${TMPDIR:-/var/tmp} ;;
    *) echo "bench_nbd_bound: MEDIA takes shm and disk, not '$medium'" >&2; exit 2 ;;
  esac
  [[ -z $WORK ]] || rm -rf "$WORK"
  WORK=$(mktemp -d "$base/bench_nbd_bound.XXXXXX")
  DIR=$WORK
  cd "$WORK"
  "$RS" create --level=1 --raid-devices=2 --create-files=1100M m0.img m1.img >/dev/null
  "$RS" bench --array=m0.img,m1.img --name=fill --rw=write --bs=1M --iodepth=8 --direct=1 >/dev/null 2>&1
  echo "medium $medium: RAID1 of two 1100 MiB files in $WORK; $RUNTIME s a run; $(date -u +%TZ), load $(load)"
  for ((r = 1; r <= ROUNDS; r++)); do
    echo " round $r: 4k randread, QD32 in all"
    round_4k
    if ((ONE_MIB)); then echo " round $r: 1 MiB read QD8"; round_1m; fi
  done
  grep -h -i "direct" serve.log | sort -u | head -3 || true
done
echo "end $(date -u +%TZ), load $(load)"
