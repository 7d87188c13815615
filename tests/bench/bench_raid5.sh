#!/usr/bin/env bash
# RAID5 through the engine against fio on the member files, side by side in
# one run (not a test; run by hand, it needs ~4.5 GiB of real disk):
#  1. full-stripe sequential write through a 4-member array (bs = 3 chunks,
#     so every write is whole stripes: no pre-reads) vs fio writing the four
#     member files at once; the array can carry at most 3/4 of that as data
#     (goal >= 0.8 x 3/4 of the aggregate). Also printed, for reference:
#     one fio job writing the four files in turn (round robin, 16 in
#     flight), the members' speed when each takes an equal share, as a
#     RAID5's must: on a shared host disk independent jobs can get unequal
#     shares (one file at 650 MB/s beside three at 220 was seen here),
#     which an array bound to its slowest member cannot use (in the runs
#     of 2026-12-01 it was not consistently below the independent jobs);
#  2. 4k random read QD32 on the array vs fio reading the four member files
#     with the same job (goal >= 0.9).
# Each pair alternates which runs first; the median of the per-round ratios
# is reported (the shared host disk is noisy; absolute figures are not the
# point).
#
#   tests/bench/bench_raid5.sh RAIDSCOPE_CLI [WORKDIR]    ROUNDS=3 RUNTIME=10
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/parity_bench_lib.sh"
RS=${1:?usage: bench_raid5.sh RAIDSCOPE_CLI [WORKDIR]}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-10}
command -v fio >/dev/null || { echo "bench_raid5: fio is not installed" >&2; exit 77; }
WORK=$(mktemp -d "${2:-${TMPDIR:-/var/tmp}}/bench_raid5.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

CHUNK=512K
m=(m0.img m1.img m2.img m3.img)
"$RS" create --level=5 --raid-devices=4 --chunk=$CHUNK --create-files=1100M "${m[@]}" >/dev/null
ARRAY=$(IFS=,; echo "${m[*]}")
# Written through once, so reads reach the disk (holes would read as zeros).
"$RS" bench --array="$ARRAY" --name=fill --rw=write --bs=1536k --iodepth=4 --direct=1 >/dev/null 2>&1
DATA_OFFSET=1048576      # where create puts the data in each member
MEMBER_DATA=$((1024 << 20))


# 1. Full stripes: 3 x 512K of data per write, 4 in flight (= 4 x 512K per member).
# Four stripe rows in flight are 4 x 128 stripe heads: md's default
# stripe_cache_size (256) holds two, so the array would run at half fio's
# depth; as one does with md, the cache is sized for the depth (1024).
engine_write() {
  "$RS" bench --array="$ARRAY" --ioengine=io_uring --name=w --rw=write --bs=1536k --iodepth=4 --direct=1 --runtime=$RUNTIME \
    --time_based --set=stripe_cache_size=1024 --output-format=json --output="$1" 2>/dev/null
}
fio_write() {  # each member file written sequentially over its data area, 512K x 4 in flight, all at once
  local args=()
  for f in "${m[@]}"; do args+=(--name=$f --filename=$f --offset=$DATA_OFFSET --size=$MEMBER_DATA); done
  fio --ioengine=io_uring --rw=write --bs=512k --iodepth=4 --direct=1 --runtime=$RUNTIME --time_based \
    "${args[@]}" --output-format=json --output="$1" >/dev/null
}
fio_write_equal() {  # the same files, bytes and depth, in equal shares: file after file, 16 in flight
  fio --name=rr --filename="$(IFS=:; echo "${m[*]}")" --file_service_type=roundrobin --ioengine=io_uring \
    --rw=write --bs=512k --iodepth=16 --direct=1 --offset=$DATA_OFFSET --size=$MEMBER_DATA --runtime=$RUNTIME \
    --time_based --output-format=json --output="$1" >/dev/null
}
# 2. 4k random reads QD32 over the data areas.
read_job=(--rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=1 --runtime=$RUNTIME --time_based --randrepeat=0)
engine_read() {
  "$RS" bench --array="$ARRAY" --name=r "${read_job[@]}" --size=$((3 * MEMBER_DATA)) --output-format=json \
    --output="$1" 2>/dev/null
}
fio_read() {
  fio --name=r --filename="$(IFS=:; echo "${m[*]}")" --ioengine=io_uring --offset=$DATA_OFFSET \
    --size=$MEMBER_DATA "${read_job[@]}" --output-format=json --output="$1" >/dev/null
}

w_ratios=() e_ratios=() r_ratios=()
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then fio_write fw.json; engine_write ew.json; else engine_write ew.json; fio_write fw.json; fi
  fio_write_equal fe.json
  a=$(bw ew.json write) b=$(bw fw.json write) e=$(bw fe.json write)
  if ((r % 2)); then fio_read fr.json; engine_read er.json; else engine_read er.json; fio_read fr.json; fi
  c=$(iops er.json) d=$(iops fr.json)
  printf 'load %s | ' "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf 'round %d: full-stripe write %7.1f MB/s data, fio 4 members %7.1f MB/s, ratio %.3f (x4/3: %.3f), equal shares %7.1f MB/s (x4/3: %.3f) | 4k randread %8.0f IOPS, fio %8.0f IOPS, ratio %.3f\n' \
    "$r" "$(python3 -c "print($a/1e6)")" "$(python3 -c "print($b/1e6)")" "$(ratio "$a" "$b")" \
    "$(python3 -c "print($a*4/3/$b)")" "$(python3 -c "print($e/1e6)")" "$(python3 -c "print($a*4/3/$e)")" \
    "$c" "$d" "$(ratio "$c" "$d")"
  w_ratios+=("$(python3 -c "print($a*4/3/$b)")") e_ratios+=("$(python3 -c "print($a*4/3/$e)")")
  r_ratios+=("$(ratio "$c" "$d")")
done
echo "RAID5 x4 full-stripe write, data / (3/4 of fio's 4-member aggregate): median $(median "${w_ratios[@]}") (goal >= 0.8)"
echo "  the same against fio writing the 4 members in equal shares:     median $(median "${e_ratios[@]}")"
echo "RAID5 x4 4k randread QD32, engine / fio on the member files:        median $(median "${r_ratios[@]}") (goal >= 0.9)"
