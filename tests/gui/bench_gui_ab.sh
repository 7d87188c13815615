#!/usr/bin/env bash
# Two GUI builds side by side in one run (hand-run benchmark, not a test):
# bench_gui of build A and of build B alternately, one round each, on one
# array (RAID5 of 4 written 256 MiB image files, 2 jobs by default), so both
# see the same host load. Prints each round's line (CLI and GUI throughput,
# process CPU, GUI threads, GUI thread, ms per refresh) under its build's
# name. Used for the hand-drawn chart (a build of the commit before it was
# replaced) against Qt Charts: docs/results/gui-cost.md.
#   tests/gui/bench_gui_ab.sh BUILD_A BUILD_B [SECONDS=65] [ALTERNATIONS=3]
# $RAIDSCOPE_BENCH_LEVEL, _MEMBERS, _JOBS as for bench_gui.sh.
set -euo pipefail
A=${1:?usage: $0 BUILD_A BUILD_B [SECONDS] [ALTERNATIONS]}
B=${2:?usage: $0 BUILD_A BUILD_B [SECONDS] [ALTERNATIONS]}
SECONDS_PER=${3:-65}
ALT=${4:-3}
LEVEL=${RAIDSCOPE_BENCH_LEVEL:-5}
N=${RAIDSCOPE_BENCH_MEMBERS:-4}
JOBS=${RAIDSCOPE_BENCH_JOBS:-2}
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run missing"; exit 77; }
WORK=$(mktemp -d /tmp/raidscope-bench-gui-ab.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export XDG_CONFIG_HOME=$WORK/config RAIDSCOPE_RESULTS_DIR=$WORK/results
members=()
for ((i = 0; i < N; i++)); do members+=("$WORK/m$i.img"); done
CLI=$B/app/raidscope-cli
"$CLI" create --level="$LEVEL" --raid-devices="$N" --create-files=256M "${members[@]}" >/dev/null
"$CLI" bench --array="$(IFS=,; echo "${members[*]}")" --name=fill --rw=write --bs=1M --iodepth=8 \
  --ioengine=io_uring --direct=1 >/dev/null
for ((r = 1; r <= ALT; r++)); do
  for build in "$A" "$B"; do
    echo "== alternation $r: $build"
    xvfb-run -a -s "-screen 0 1600x1000x24" "$build/tests/gui/bench_gui" "$CLI" "$SECONDS_PER" 1 ssd-sata 0.4 \
      dashboard "$JOBS" "${members[@]}" 2>&1 | grep -v XDG_RUNTIME_DIR | grep -E '^(bench_gui|renderer|1 |load|median)'
  done
done
