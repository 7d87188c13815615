#!/usr/bin/env bash
# The array's hot path, before against after, side by side in one run:
# two raidscope-cli binaries (BEFORE: a git ref, main by default, built
# here from `git archive`; AFTER: this tree's build) take turns on the same
# arrays, round after round (A B, then B A, ...), so both see the same
# host. Each workload runs 2 jobs on one array:
#   RAID1 x2 4k randread QD32, RAID5 x4 4k randwrite QD16, RAID5 x4 64k write.
# Prints each round's figures, the medians and after/before ratios of the
# medians, in how many rounds after beat before, each binary's spread
# (max/min - 1 over the rounds), and the load average per round. Never
# asserts a time.
#
# The members are files on an ext4 over a loop device on /dev/shm (the RAM
# target of ram_target.sh), so the CPU's path is measured, not the shared
# host disk. Needs root and a free loop device, else exits 77.
#
#   tests/bench/bench_hot_path.sh [BEFORE_REF]     ROUNDS=5 RUNTIME=5
#   BEFORE_CLI=path AFTER_CLI=path   use these binaries instead of building
#   JOBS=2                           build parallelism
#   WORKLOADS="r5_randwrite ..."     a subset (default: all three)
#   RAM_MKFS_OPTS, RAM_MOUNT_OPTS    the RAM target's ext4 (ram_target.sh);
#       default here: no journal, noatime,lazytime. With ext4's defaults
#       (set both empty) the journal's commit every 5 s and the inode
#       update of a write's mtime add to one round and not the next.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REF=${1:-main}
ROUNDS=${ROUNDS:-5}
RUNTIME=${RUNTIME:-5}
command -v python3 >/dev/null || { echo "bench_hot_path: python3 is not installed" >&2; exit 77; }

: "${RAM_MKFS_OPTS=-O ^has_journal}" "${RAM_MOUNT_OPTS=noatime,lazytime}"
HALTPOLL=keep  # a shared machine: leave the guest's idle polling alone
TARGET=${TARGET:-ram}  # the members on RAM (TARGET=disk: on /tmp's disk, which drifts)
# shellcheck source=ram_target.sh
source "$ROOT/tests/bench/ram_target.sh"
bench_workdir bench_hot_path /tmp 3072
WORK=$BENCH_WORK

build_cli() {  # build_cli SRC_DIR BUILD_DIR -> prints the binary's path
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 -DRAIDSCOPE_GUI=OFF >"$2.log" 2>&1 &&
    cmake --build "$2" -j"${JOBS:-2}" --target raidscope-cli >>"$2.log" 2>&1 ||
    { echo "bench_hot_path: building $1 failed, see $2.log" >&2; exit 1; }
  echo "$2/app/raidscope-cli"
}
if [[ -z ${BEFORE_CLI:-} ]]; then
  BEFORE_SRC=$(mktemp -d /var/tmp/hot-path-before.XXXXXX)
  trap 'rm -rf -- "$BENCH_WORK" "$BEFORE_SRC"; ram_target_down' EXIT
  git -C "$ROOT" archive "$REF" | tar -x -C "$BEFORE_SRC"
  echo "building $REF ($(git -C "$ROOT" rev-parse --short "$REF")) in $BEFORE_SRC ..." >&2
  BEFORE_CLI=$(build_cli "$BEFORE_SRC" "$BEFORE_SRC/build")
fi
if [[ -z ${AFTER_CLI:-} ]]; then
  echo "building this tree ($(git -C "$ROOT" rev-parse --short HEAD)) in $ROOT/build ..." >&2
  AFTER_CLI=$(build_cli "$ROOT" "$ROOT/build")
fi
[[ -x $BEFORE_CLI && -x $AFTER_CLI ]] || { echo "bench_hot_path: $BEFORE_CLI or $AFTER_CLI is not a program" >&2; exit 2; }

cd "$WORK"
r1=(r1a.img r1b.img) r5=(r5a.img r5b.img r5c.img r5d.img)
"$AFTER_CLI" create --level=1 --raid-devices=2 --bitmap=none --create-files=520M "${r1[@]}" >/dev/null
"$AFTER_CLI" create --level=5 --raid-devices=4 --chunk=64K --bitmap=none --create-files=264M "${r5[@]}" >/dev/null
R1=$(IFS=,; echo "${r1[*]}") R5=$(IFS=,; echo "${r5[*]}")
# Both written through once: reads reach the members' blocks, not holes,
# and writes overwrite allocated blocks. Unfilled, a RAID5 write round
# mostly measured ext4 allocating the sparse member files (perf: extent
# lookups and io-wq hand-offs, 15-22k IOPS drifting from run to run as the
# files filled, against ~38k filled), not the array's path.
for a in "$R1" "$R5"; do
  "$AFTER_CLI" bench --array="$a" --name=fill --rw=write --bs=1m --iodepth=8 --direct=1 >/dev/null 2>&1
done

common=(--ioengine=io_uring --direct=1 --numjobs=2 --time_based --randrepeat=0 --output-format=json)
run() {  # run CLI WORKLOAD OUT.json (for RUNTIME seconds)
  local cli=$1 w=$2 out=$3
  local common=("${common[@]}" --runtime="$RUNTIME")
  case $w in
    r1_randread) "$cli" bench --array="$R1" --name=w --rw=randread --bs=4k --iodepth=32 "${common[@]}" --output="$out" ;;
    r5_randwrite) "$cli" bench --array="$R5" --name=w --rw=randwrite --bs=4k --iodepth=16 "${common[@]}" --output="$out" ;;
    r5_write64k) "$cli" bench --array="$R5" --name=w --rw=write --bs=64k --iodepth=16 "${common[@]}" --output="$out" ;;
  esac >/dev/null 2>"$out.err" || { echo "bench_hot_path: $cli $w failed:" >&2; cat "$out.err" >&2; exit 1; }
}
iops() {  # the jobs' summed IOPS (reads + writes)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(j[k]["iops"] for j in d["jobs"] for k in ("read","write")))' "$1"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

read -r -a workloads <<<"${WORKLOADS:-r1_randread r5_randwrite r5_write64k}"
for w in "${workloads[@]}"; do
  [[ $w == @(r1_randread|r5_randwrite|r5_write64k) ]] ||
    { echo "bench_hot_path: WORKLOADS: no workload '$w' (r1_randread, r5_randwrite, r5_write64k)" >&2; exit 2; }
done
declare -A before after
echo "before: $BEFORE_CLI ($REF)"
echo "after:  $AFTER_CLI"
# One short uncounted run of each workload with each binary first: the
# first timed rounds on a fresh target were up to 11 % below the rest
# whichever binary ran first (docs/results/hot-path.md, 2026-12-05 16:53).
for w in "${workloads[@]}"; do
  RUNTIME=2 run "$BEFORE_CLI" "$w" b.json
  RUNTIME=2 run "$AFTER_CLI" "$w" a.json
done
for ((r = 1; r <= ROUNDS; r++)); do
  line="round $r, load $(cut -d' ' -f1-3 /proc/loadavg):"
  for w in "${workloads[@]}"; do
    if ((r % 2)); then order=(B A); else order=(A B); fi
    for who in "${order[@]}"; do
      if [[ $who == B ]]; then run "$BEFORE_CLI" "$w" b.json; else run "$AFTER_CLI" "$w" a.json; fi
    done
    b=$(iops b.json) a=$(iops a.json)
    before[$w]+="$b " after[$w]+="$a "
    line+=$(printf ' %s %.0f -> %.0f IOPS;' "$w" "$b" "$a")
  done
  echo "$line"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %12s %12s %7s %10s %14s\n' workload "before IOPS" "after IOPS" ratio "after won" "spread b / a"
for w in "${workloads[@]}"; do
  # shellcheck disable=SC2086
  mb=$(median ${before[$w]}) ma=$(median ${after[$w]})
  read -r won spread < <(python3 -c '
import sys
b, a = (list(map(float, x.split())) for x in sys.argv[1:3])
won = sum(y > x for x, y in zip(b, a))
print(f"{won}/{len(b)}", f"{max(b)/min(b)-1:.1%}/{max(a)/min(a)-1:.1%}")' "${before[$w]}" "${after[$w]}")
  printf '%-14s %12.0f %12.0f %7.3f %10s %14s\n' "$w" "$mb" "$ma" "$(python3 -c "print($ma/$mb)")" "$won" "$spread"
done
