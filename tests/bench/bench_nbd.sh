#!/usr/bin/env bash
# The NBD export's speed, measured side by side in one run (not a test; run
# by hand, it needs ~2.2 GiB of real disk and a few minutes). On one RAID1 of
# two member files, fio's nbd engine (libnbd, one connection) runs
#   4k randread QD32, and 1 MiB sequential read QD8
# against:
#   ours    raidscope-cli serve on a unix socket, serving the RAID1;
#   nbdkit  nbdkit's file plugin serving one member file at the member's
#           data offset, with cache=none fadvise=random and the file's page
#           cache dropped before each run: the array reads its members with
#           O_DIRECT, so nbdkit must not read from memory either (with the
#           defaults, a 1 MiB sequential run leaves the file in the page
#           cache and the next run reads it from there at twice the rate).
#           The file's pages in memory after each run are printed;
#   bench   raidscope-cli bench on the same array with the same job
#           (io_uring, O_DIRECT): the array without the NBD hop;
#   null    nbdkit's null plugin (reads nothing, sends zeros): nbdkit with
#           no storage behind it. Not the client's ceiling: nbdkit's own
#           threads cost ~10 us a 4k request here, and our export of a RAID1
#           in /dev/shm answers faster (bench_nbd_bound.sh measures the bound);
#   before  (when RS_BEFORE names another raidscope-cli) that binary's
#           export, run next to ours in every round: a change's effect.
# and prints ours/nbdkit (goals: >= 0.9 on 4k, >= 1.6 on 1 MiB, where two
# mirrors serve what one file serves) and ours/bench (goal >= 0.8). Each
# round alternates which server runs first; the median of the per-round
# ratios is reported (the host disk and CPU are shared and noisy).
#
#   tests/bench/bench_nbd.sh RAIDSCOPE_CLI [WORKDIR]    ROUNDS=3 RUNTIME=10 RS_BEFORE=
# Exits 77 when fio (with its nbd engine) or nbdkit is missing.
set -euo pipefail
RS=${1:?usage: bench_nbd.sh RAIDSCOPE_CLI [WORKDIR]}
RS=$(realpath "$RS")
BEFORE=${RS_BEFORE:+$(realpath "$RS_BEFORE")}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-10}
command -v fio >/dev/null || { echo "bench_nbd: fio is not installed" >&2; exit 77; }
fio --enghelp 2>/dev/null | grep -qw nbd || { echo "bench_nbd: this fio has no nbd engine" >&2; exit 77; }
command -v nbdkit >/dev/null || { echo "bench_nbd: nbdkit is not installed (apt-get install nbdkit)" >&2; exit 77; }
WORK=$(mktemp -d "${2:-${TMPDIR:-/var/tmp}}/bench_nbd.XXXXXX")
source "$(dirname "$(realpath "$0")")/nbd_bench_lib.sh"
trap 'stop_server; rm -rf "$WORK"' EXIT
cd "$WORK"
[[ $(stat -f -c %T .) != tmpfs ]] || { echo "bench_nbd: $WORK is on tmpfs (O_DIRECT needs a disk)" >&2; exit 2; }

"$RS" create --level=1 --raid-devices=2 --create-files=1100M m0.img m1.img >/dev/null
# Written through once, so reads reach the disk (holes would read as zeros).
"$RS" bench --array=m0.img,m1.img --name=fill --rw=write --bs=1M --iodepth=8 --direct=1 >/dev/null 2>&1
DATA_OFFSET=1048576  # where create puts the data in each member
SIZE=$((1024 << 20))

JOB_4K=(--rw=randread --bs=4k --iodepth=32)
JOB_1M=(--rw=read --bs=1M --iodepth=8)
COMMON=(--runtime=$RUNTIME --time_based --size=$SIZE --randrepeat=0 --output-format=json)
iops() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(j["read"]["iops"] for j in d["jobs"]))' "$1"; }
ratio() { python3 -c "print('%.3f' % ($1 / $2))"; }
fio_nbd() {  # fio_nbd OUT URI OFFSET JOB...
  local out=$1 uri=$2 offset=$3
  shift 3
  fio --name=r --ioengine=nbd --uri="$uri" --offset="$offset" "$@" "${COMMON[@]}" --output="$out" >/dev/null
}
run_ours() {  # run_ours [BINARY PREFIX]: both jobs against raidscope-cli serve
  local bin=${1:-$RS} out=${2:-ours}
  start_ours "$bin" "$WORK/rs.sock" m0.img m1.img
  fio_nbd "${out}4k.json" "nbd+unix:///raid1?socket=$WORK/rs.sock" 0 "${JOB_4K[@]}"
  fio_nbd "${out}1m.json" "nbd+unix:///raid1?socket=$WORK/rs.sock" 0 "${JOB_1M[@]}"
  stop_server
}
run_before() { [[ -z $BEFORE ]] || run_ours "$BEFORE" before; }
run_null() {  # both jobs against nbdkit with no storage behind it
  start_nbdkit "$WORK/null.sock" null size=$SIZE
  fio_nbd null4k.json "nbd+unix:///?socket=$WORK/null.sock" 0 "${JOB_4K[@]}"
  fio_nbd null1m.json "nbd+unix:///?socket=$WORK/null.sock" 0 "${JOB_1M[@]}"
  stop_server
}
run_nbdkit() {  # both jobs against nbdkit's file plugin on one member
  drop_cache m0.img
  start_nbdkit "$WORK/kit.sock" file m0.img cache=none fadvise=random
  fio_nbd kit4k.json "nbd+unix:///?socket=$WORK/kit.sock" $DATA_OFFSET "${JOB_4K[@]}"
  CACHED_4K=$(cached m0.img)
  drop_cache m0.img
  fio_nbd kit1m.json "nbd+unix:///?socket=$WORK/kit.sock" $DATA_OFFSET "${JOB_1M[@]}"
  CACHED_1M=$(cached m0.img)
  stop_server
}
run_bench() {  # both jobs through the engine, no NBD
  local j
  for j in 4k 1m; do
    local -n job=JOB_${j^^}
    "$RS" bench --array=m0.img,m1.img --name=r "${job[@]}" --ioengine=io_uring --direct=1 "${COMMON[@]}" \
      --output=bench$j.json 2>/dev/null
  done
}

echo "RAID1 of two 1100 MiB files in $WORK; fio's nbd engine, one connection, $RUNTIME s a run"
echo "start: $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
k4=() m1=() b4=() b1=() c4=() c1=() pk4=() pm1=() pb4=() pb1=()
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then run_ours; run_before; run_nbdkit; run_null; run_bench
  else run_bench; run_null; run_nbdkit; run_before; run_ours; fi
  o4=$(iops ours4k.json) n4=$(iops kit4k.json) e4=$(iops bench4k.json) z4=$(iops null4k.json)
  o1=$(mibs ours1m.json) n1=$(mibs kit1m.json) e1=$(mibs bench1m.json) z1=$(mibs null1m.json)
  printf 'round %d: 4k randread QD32 IOPS: ours %7.0f  nbdkit %7.0f  bench %7.0f  null %7.0f | 1M read QD8 MiB/s: ours %6.0f  nbdkit %6.0f  bench %6.0f  null %6.0f\n' \
    "$r" "$o4" "$n4" "$e4" "$z4" "$o1" "$n1" "$e1" "$z1"
  echo "         nbdkit's member file in the page cache after its runs: $CACHED_4K bytes (4k), $CACHED_1M bytes (1M)"
  k4+=("$(ratio "$o4" "$n4")") m1+=("$(ratio "$o1" "$n1")") b4+=("$(ratio "$o4" "$e4")") b1+=("$(ratio "$o1" "$e1")")
  c4+=("$(ratio "$o4" "$z4")") c1+=("$(ratio "$o1" "$z1")")
  if [[ -n $BEFORE ]]; then
    p4=$(iops before4k.json) p1=$(mibs before1m.json)
    printf '         before (%s): 4k %7.0f IOPS, 1M %6.0f MiB/s\n' "$BEFORE" "$p4" "$p1"
    pk4+=("$(ratio "$p4" "$n4")") pm1+=("$(ratio "$p1" "$n1")") pb4+=("$(ratio "$p4" "$e4")") pb1+=("$(ratio "$p1" "$e1")")
  fi
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "end: $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median ratios over $ROUNDS rounds:"
echo "  4k randread QD32, ours / nbdkit file (one member): $(median "${k4[@]}") (goal >= 0.9)"
echo "  1M read QD8,      ours / nbdkit file (one member): $(median "${m1[@]}") (goal >= 1.6)"
echo "  4k randread QD32, ours / raidscope-cli bench:      $(median "${b4[@]}") (goal >= 0.8)"
echo "  1M read QD8,      ours / raidscope-cli bench:      $(median "${b1[@]}") (goal >= 0.8)"
echo "  4k randread QD32, ours / nbdkit null: $(median "${c4[@]}")"
echo "  1M read QD8,      ours / nbdkit null: $(median "${c1[@]}")"
if [[ -n $BEFORE ]]; then
  echo "before ($BEFORE), the same rounds:"
  echo "  4k ours/nbdkit $(median "${pk4[@]}"), 1M ours/nbdkit $(median "${pm1[@]}"), 4k ours/bench $(median "${pb4[@]}"), 1M ours/bench $(median "${pb1[@]}")"
fi
