#!/usr/bin/env bash
# What the write-intent bitmap costs (not a test; run by hand): 4k random
# writes QD16 on a RAID1 of two image files with an internal bitmap vs the
# same array without one, side by side, alternating which runs first; the
# median of the per-round ratios (goal >= 0.8: md's own cost with a large
# chunk is of that order).
#
#   tests/bench/bench_bitmap.sh RAIDSCOPE_CLI [WORKDIR]    ROUNDS=3 RUNTIME=10 CHUNK=64M
set -euo pipefail
RS=${1:?usage: bench_bitmap.sh RAIDSCOPE_CLI [WORKDIR]}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-10}
CHUNK=${CHUNK:-64M}
WORK=$(mktemp -d "${2:-${TMPDIR:-/var/tmp}}/bench_bitmap.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
"$RS" create --level=1 --raid-devices=2 --create-files=1100M --bitmap=internal --bitmap-chunk="$CHUNK" b0.img b1.img \
  >/dev/null
"$RS" create --level=1 --raid-devices=2 --create-files=1100M --bitmap=none n0.img n1.img >/dev/null
job=(--name=w --rw=randwrite --bs=4k --iodepth=16 --ioengine=io_uring --size=1g --runtime=$RUNTIME --time_based --direct=1
  --output-format=json)
iops() { python3 -c 'import json,sys; print(sum(j["write"]["iops"] for j in json.load(open(sys.argv[1]))["jobs"]))' "$1"; }
ratios=()
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    "$RS" bench --array=b0.img,b1.img "${job[@]}" --output=with.json 2>/dev/null
    "$RS" bench --array=n0.img,n1.img "${job[@]}" --output=without.json 2>/dev/null
  else
    "$RS" bench --array=n0.img,n1.img "${job[@]}" --output=without.json 2>/dev/null
    "$RS" bench --array=b0.img,b1.img "${job[@]}" --output=with.json 2>/dev/null
  fi
  a=$(iops with.json) b=$(iops without.json)
  ratio=$(python3 -c "print($a/$b)")
  printf 'round %d: with bitmap (%s chunks) %8.0f IOPS  without %8.0f IOPS  ratio %.3f\n' "$r" "$CHUNK" "$a" "$b" "$ratio"
  ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2;
  printf "4k randwrite on RAID1, bitmap / no bitmap: median ratio %.3f (goal >= 0.8)\n", m}'
