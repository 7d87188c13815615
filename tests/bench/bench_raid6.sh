#!/usr/bin/env bash
# RAID6 through the engine against fio on the member files, side by side in
# one run (not a test; run by hand, it needs ~2 x 1.1 GB x N of real disk):
#  1. full-stripe sequential write through an N-member array (bs = N-2
#     chunks, so every write is whole stripes: no pre-reads) vs fio writing
#     the N member files at once; the array can carry at most (N-2)/N of
#     that as data (goal >= 0.8 x (N-2)/N of the aggregate);
#  2. 4k random read QD32 on a second N-member RAID6 with two members
#     failed (every read of a lost block rebuilt from P and Q, or P alone)
#     vs the healthy array with the same job (goal >= 0.5).
#  3. (PARTS=ceiling) what one host disk allows pair 2: fio 4k random reads
#     on the healthy array's member files at QD32 (the healthy array's
#     member depth) and at the degraded array's member depth, as
#     IOPS(degraded depth) / (member reads per array read x IOPS(QD32)).
#     md's left-symmetric RAID6 gives each member every role once in N
#     stripes, so any two lost members hold 2 of every N data blocks; each
#     of those needs the N-2 survivors (N-2 blocks solve two unknowns):
#     R = (1 - 2/N) x 1 + 2/N x (N-2) member reads per array read, and the
#     32 array reads in flight keep 32 x R member reads in flight.
# Each pair alternates which runs first; the median of the per-round ratios
# is reported, with the load average beside each round (the host disk and
# CPU are shared; absolute figures are not the point).
#
#   tests/bench/bench_raid6.sh RAIDSCOPE_CLI [WORKDIR]    ROUNDS=3 RUNTIME=10 N=6
#   N: members of each array (4 to 128; default 6); members 1 and N-2 fail.
#   PARTS: any of write,read,ceiling (default write,read); the arrays are made
#     and filled all the same (the degraded one only for read).
#   COMPARE=OTHER_CLI: pair 2 also with another build (e.g. before a change),
#     on the same arrays in the same rounds, its own healthy run as its base.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/parity_bench_lib.sh"
RS=${1:?usage: bench_raid6.sh RAIDSCOPE_CLI [WORKDIR]}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-10}
PARTS=${PARTS:-write,read}
COMPARE=${COMPARE:-}
command -v fio >/dev/null || { echo "bench_raid6: fio is not installed" >&2; exit 77; }
WORK=$(mktemp -d "${2:-${TMPDIR:-/var/tmp}}/bench_raid6.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

N=${N:-6}
if ! [[ $N =~ ^[0-9]+$ ]] || ((N < 4 || N > 128)); then
  echo "bench_raid6: N=$N: RAID6 takes 4 to 128 members" >&2
  exit 2
fi
CHUNK=512K FULL=$(((N - 2) * 512))k  # a full stripe: (N-2) chunks of data
DATA_OFFSET=1048576                   # where create puts the data in each member
MEMBER_DATA=$((1024 << 20))
LOST=(1 $((N - 2)))  # the two failed members of the second array
h=() d=() survivors=()
for ((i = 0; i < N; i++)); do
  h+=("h$i.img") d+=("d$i.img")
  [[ " ${LOST[*]} " == *" $i "* ]] || survivors+=("d$i.img")
done
sets=h
[[ $PARTS == *read* ]] && sets+=" d"
for set in $sets; do
  eval "files=(\"\${$set[@]}\")"
  "$RS" create --level=6 --raid-devices=$N --chunk=$CHUNK --create-files=1100M "${files[@]}" >/dev/null
  # Written through once, so reads reach the disk (holes would read as zeros).
  "$RS" bench --array="$(IFS=,; echo "${files[*]}")" --name=fill --rw=write --bs=$FULL --iodepth=4 --direct=1 \
    --set=stripe_cache_size=1024 >/dev/null 2>&1
done
# Two members of the second array lost: over N stripes they hold
# data+data, data+P, data+Q and P+Q in turn (left-symmetric).
if [[ $sets == *d* ]]; then
  for m in "${LOST[@]}"; do "$RS" fail --member=d$m.img "${d[@]}" >/dev/null; done
fi
HEALTHY=$(IFS=,; echo "${h[*]}")
DEGRADED=$(IFS=,; echo "${survivors[*]}")

# 1. Full stripes, 4 in flight; the cache sized for the depth (4 rows of
# 128 heads), as one does with md.
engine_write() {
  "$RS" bench --array="$HEALTHY" --ioengine=io_uring --name=w --rw=write --bs=$FULL --iodepth=4 --direct=1 \
    --runtime=$RUNTIME --time_based --set=stripe_cache_size=1024 --output-format=json --output="$1" 2>/dev/null
}
fio_write() {  # each member file written sequentially over its data area, 512K x 4 in flight, all at once
  local args=()
  for f in "${h[@]}"; do args+=(--name=$f --filename=$f --offset=$DATA_OFFSET --size=$MEMBER_DATA); done
  fio --ioengine=io_uring --rw=write --bs=512k --iodepth=4 --direct=1 --runtime=$RUNTIME --time_based \
    "${args[@]}" --output-format=json --output="$1" >/dev/null
}
# 2. 4k random reads QD32 over the whole array, healthy and two members lost.
read_job=(--name=r --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=1 --runtime=$RUNTIME --time_based
  --randrepeat=0 --output-format=json)
healthy_read() { "$1" bench --array="$HEALTHY" "${read_job[@]}" --output="$2" 2>/dev/null; }
degraded_read() { "$1" bench --array="$DEGRADED" --run "${read_job[@]}" --output="$2" 2>/dev/null; }
# Pair 2 with build $1 in round $2 (odd rounds healthy first): "healthy degraded" IOPS.
read_pair() {
  if (($2 % 2)); then healthy_read "$1" hr.json; degraded_read "$1" dr.json; else
    degraded_read "$1" dr.json; healthy_read "$1" hr.json; fi
  echo "$(iops hr.json) $(iops dr.json)"
}

# 3. fio 4k random reads over the healthy members' data areas, `$2` in
# flight over all of them (one job, files taken in turn; its size is
# divided between them).
fio_read() {
  fio --name=members --filename="$(IFS=:; echo "${h[*]}")" --offset=$DATA_OFFSET --size=$((N * MEMBER_DATA)) \
    --ioengine=io_uring --rw=randread --bs=4k --iodepth="$2" --direct=1 --runtime=$RUNTIME --time_based \
    --randrepeat=0 --output-format=json --output="$1" >/dev/null
}
R=$(calc "round(1 + 2 * ($N - 3) / $N, 4)")  # (1 - 2/N) + 2/N x (N-2): member reads per array read
DEPTH_D=$(python3 -c "print(round(32 * $R))")

w_ratios=() r_ratios=() cmp_ratios=() c_ratios=()
for ((r = 1; r <= ROUNDS; r++)); do
  line="load $(load) | round $r:"
  if [[ $PARTS == *write* ]]; then
    if ((r % 2)); then fio_write fw.json; engine_write ew.json; else engine_write ew.json; fio_write fw.json; fi
    a=$(bw ew.json write) b=$(bw fw.json write)
    line+=$(printf ' full-stripe write %7.1f MB/s data, fio %d members %7.1f MB/s, ratio %.3f (x%d/%d: %.3f) |' \
      "$(calc "$a/1e6")" $N "$(calc "$b/1e6")" "$(ratio "$a" "$b")" $N $((N - 2)) "$(calc "$a*$N/($N-2)/$b")")
    w_ratios+=("$(calc "$a*$N/($N-2)/$b")")
  fi
  if [[ $PARTS == *read* ]]; then
    if [[ -n $COMPARE ]] && ((r % 2 == 0)); then read -r cc ce < <(read_pair "$COMPARE" $r); fi
    read -r c e < <(read_pair "$RS" $r)
    if [[ -n $COMPARE ]] && ((r % 2)); then read -r cc ce < <(read_pair "$COMPARE" $r); fi
    line+=$(printf ' 4k randread healthy %8.0f IOPS, two missing %8.0f IOPS, ratio %.3f' "$c" "$e" "$(ratio "$e" "$c")")
    r_ratios+=("$(ratio "$e" "$c")")
    if [[ -n $COMPARE ]]; then
      line+=$(printf ' | COMPARE: healthy %8.0f, two missing %8.0f, ratio %.3f' "$cc" "$ce" "$(ratio "$ce" "$cc")")
      cmp_ratios+=("$(ratio "$ce" "$cc")")
    fi
  fi
  if [[ $PARTS == *ceiling* ]]; then
    if ((r % 2)); then fio_read f32.json 32; fio_read fd.json $DEPTH_D; else
      fio_read fd.json $DEPTH_D; fio_read f32.json 32; fi
    a=$(iops f32.json) b=$(iops fd.json)
    line+=$(printf ' | fio members 4k randread QD32 %8.0f IOPS, QD%d %8.0f IOPS, ceiling %.3f' \
      "$a" $DEPTH_D "$b" "$(calc "$b/($R*$a)")")
    c_ratios+=("$(calc "$b/($R*$a)")")
  fi
  echo "$line"
done
if [[ $PARTS == *write* ]]; then
  echo "RAID6 x$N full-stripe write, data / ($((N - 2))/$N of fio's $N-member aggregate): median $(median "${w_ratios[@]}") (goal >= 0.8)"
fi
if [[ $PARTS == *read* ]]; then
  echo "RAID6 x$N 4k randread QD32, two members missing / healthy:           median $(median "${r_ratios[@]}") (goal >= 0.5)"
fi
if [[ $PARTS == *ceiling* ]]; then
  echo "RAID6 x$N disk-bound ceiling of that ratio, fio QD$DEPTH_D / ($R x fio QD32): median $(median "${c_ratios[@]}")"
fi
if [[ $PARTS == *read* && -n $COMPARE ]]; then
  echo "  the same with COMPARE ($COMPARE):                       median $(median "${cmp_ratios[@]}")"
fi
