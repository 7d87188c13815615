#!/usr/bin/env bash
# The engine core's cost, measured side by side in one run (not a test; run
# by hand, it needs ~2.2 GiB of real disk and a few minutes):
#  1. RAID1 4k randread QD32 through the engine vs fio reading the two member
#     files with the same job (goal >= 0.95);
#  2. the same bench with the telemetry sampler at 50 Hz and a reader (the
#     JSONL writer) vs without (goal >= 0.98).
# The engine registers each job's buffers with its ring (io_uring fixed
# buffers) for an array's member I/O; fio does that only with fixedbufs=1,
# which is not its default. So each round also runs fio with fixedbufs=1
# and prints that ratio as well: the engine against fio at its cheapest.
# Each pair alternates which runs first; the median of the per-round ratios
# is reported (the shared host disk is noisy; absolute figures are not the
# point).
#
#   tests/bench/bench_core.sh RAIDSCOPE_CLI [WORKDIR]    ROUNDS=3 RUNTIME=10
set -euo pipefail
RS=${1:?usage: bench_core.sh RAIDSCOPE_CLI [WORKDIR]}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-10}
command -v fio >/dev/null || { echo "bench_core: fio is not installed" >&2; exit 77; }
WORK=$(mktemp -d "${2:-${TMPDIR:-/var/tmp}}/bench_core.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

"$RS" create --level=1 --raid-devices=2 --create-files=1100M m0.img m1.img >/dev/null
# Written through once, so reads reach the disk (holes would read as zeros).
"$RS" bench --array=m0.img,m1.img --name=fill --rw=write --bs=1M --iodepth=8 --direct=1 >/dev/null 2>&1
DATA_OFFSET=1048576  # where create puts the data in each member
SIZE=$((1024 << 20))

job=(--rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=1 --runtime=$RUNTIME --time_based --size=$SIZE --randrepeat=0)
iops() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(j["read"]["iops"] for j in d["jobs"]))' "$1"; }

run_engine() {  # run_engine OUT [extra options]
  local out=$1; shift
  "$RS" bench --array=m0.img,m1.img --name=r "${job[@]}" --output-format=json --output="$out" "$@" 2>/dev/null
}
run_fio() {  # run_fio OUT [extra options]
  # Both member files, the same region (their data areas), one job: fio
  # spreads the I/O over the files as the array spreads reads over mirrors.
  local out=$1; shift
  fio --name=r --filename=m0.img:m1.img --offset=$DATA_OFFSET "${job[@]}" "$@" \
    --output-format=json --output="$out" >/dev/null
}

ratios1=() ratios2=() ratios3=()
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then run_fio fio.json; run_engine rs.json; run_fio fixed.json --fixedbufs=1
  else run_fio fixed.json --fixedbufs=1; run_engine rs.json; run_fio fio.json; fi
  a=$(iops rs.json) b=$(iops fio.json) f=$(iops fixed.json)
  if ((r % 2)); then run_engine plain.json; run_engine sampled.json --telemetry-ms=20 --telemetry=t.jsonl
  else run_engine sampled.json --telemetry-ms=20 --telemetry=t.jsonl; run_engine plain.json; fi
  c=$(iops plain.json) d=$(iops sampled.json)
  samples=$(wc -l <t.jsonl)
  printf 'round %d: engine %8.0f IOPS  fio %8.0f IOPS  ratio %.3f  (fio fixedbufs=1 %8.0f, ratio %.3f) | plain %8.0f  sampler 50 Hz %8.0f (%d samples)  ratio %.3f\n' \
    "$r" "$a" "$b" "$(python3 -c "print($a/$b)")" "$f" "$(python3 -c "print($a/$f)")" "$c" "$d" "$samples" "$(python3 -c "print($d/$c)")"
  ratios1+=("$(python3 -c "print($a/$b)")") ratios2+=("$(python3 -c "print($d/$c)")") ratios3+=("$(python3 -c "print($a/$f)")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "RAID1 4k randread QD32, engine / fio on the member files: median ratio $(median "${ratios1[@]}") (goal >= 0.95)"
echo "the same, against fio with fixedbufs=1 (registered buffers, as the engine): median ratio $(median "${ratios3[@]}")"
echo "same bench, sampler at 50 Hz + JSONL reader / without:     median ratio $(median "${ratios2[@]}") (goal >= 0.98)"
