#!/usr/bin/env bash
# What the durability ordering costs (not a test; run by hand): two builds of
# raidscope-cli (before and after a change) run the same jobs on the same
# arrays of image files, alternating which goes first, ROUNDS rounds; prints
# each run's figure and the median after/before ratio per job.
#   RAID5 x4 (64K chunk): 4k randwrite QD16, 64k sequential write QD16
#   RAID1 x2:             4k randwrite QD16
# each without a bitmap and with an internal one (BITMAP_CHUNK, default 1M,
# small so bits are set and cleared often).
#
#   tests/bench/bench_durability.sh CLI_BEFORE CLI_AFTER [WORKDIR]   ROUNDS=3 RUNTIME=5
set -euo pipefail
BEFORE=${1:?usage: bench_durability.sh CLI_BEFORE CLI_AFTER [WORKDIR]}
AFTER=${2:?usage: bench_durability.sh CLI_BEFORE CLI_AFTER [WORKDIR]}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-5}
BITMAP_CHUNK=${BITMAP_CHUNK:-1M}
WORK=$(mktemp -d "${3:-${TMPDIR:-/var/tmp}}/bench_durability.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# name level members bitmap(none|internal)
arrays=("r5 5 4 none" "r5b 5 4 internal" "r1 1 2 none" "r1b 1 2 internal")
for a in "${arrays[@]}"; do
  read -r name level n bitmap <<<"$a"
  members=()
  for ((i = 0; i < n; i++)); do members+=("$name-$i.img"); done
  opts=(--level="$level" --raid-devices="$n" --create-files=400M --bitmap="$bitmap")
  [[ $level == 5 ]] && opts+=(--chunk=64K)
  [[ $bitmap == internal ]] && opts+=(--bitmap-chunk="$BITMAP_CHUNK")
  "$AFTER" create "${opts[@]}" "${members[@]}" >/dev/null
  # Written through once: the files' blocks exist before anything is timed.
  "$AFTER" bench --array="$(IFS=,; echo "${members[*]}")" --name=fill --rw=write --bs=1M --iodepth=8 --direct=1 \
    >/dev/null 2>&1
done

members_of() { local m=() i; for ((i = 0; i < $2; i++)); do m+=("$1-$i.img"); done; (IFS=,; echo "${m[*]}"); }
# job label, array name, members, fio options
jobs=("raid5 4k randwrite QD16|r5|4|--rw=randwrite --bs=4k"
  "raid5 64k write QD16|r5|4|--rw=write --bs=64k"
  "raid1 4k randwrite QD16|r1|2|--rw=randwrite --bs=4k")
value() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]["write"]; print(j["iops"], j["bw_bytes"])' "$1"; }

printf '%-36s %-7s %12s %12s %12s\n' job build IOPS MB/s ratio
for spec in "${jobs[@]}"; do
  IFS='|' read -r label arr n fio <<<"$spec"
  for suffix in "" b; do
    ratios=()
    for ((r = 1; r <= ROUNDS; r++)); do
      order=(before after)
      ((r % 2)) || order=(after before)
      declare -A iops=()
      for which in "${order[@]}"; do
        cli=$BEFORE
        [[ $which == after ]] && cli=$AFTER
        # shellcheck disable=SC2086
        "$cli" bench --array="$(members_of "$arr$suffix" "$n")" --name=w $fio --iodepth=16 --ioengine=io_uring \
          --direct=1 --size=256m --runtime="$RUNTIME" --time_based --output-format=json --output="$which.json" 2>/dev/null
        read -r i bw < <(value "$which.json")
        iops[$which]=$i
        printf '%-36s %-7s %12.0f %12.1f\n' "$label${suffix:+, bitmap $BITMAP_CHUNK} #$r" "$which" "$i" \
          "$(python3 -c "print($bw / 1e6)")"
      done
      ratios+=("$(python3 -c "print(${iops[after]} / ${iops[before]})")")
    done
    printf '%-36s %-7s %12s %12s %12.3f\n' "$label${suffix:+, bitmap $BITMAP_CHUNK}" median "" "" \
      "$(python3 -c 'import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))' "${ratios[@]}")"
  done
done
