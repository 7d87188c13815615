#!/usr/bin/env bash
# The GUI's cost during a run (hand-run benchmark, not a test): makes an
# array of written 256 MiB image files and runs bench_gui under Xvfb (or on
# $DISPLAY when RAIDSCOPE_BENCH_DISPLAY=1); the members emulate SATA SSDs
# slowed to 0.4, so a busy host disk still feeds them all.
#   tests/gui/bench_gui.sh BUILD_DIR [SECONDS=70] [ROUNDS=3] [PAGE=dashboard]
# The array: $RAIDSCOPE_BENCH_LEVEL (default 5) of $RAIDSCOPE_BENCH_MEMBERS
# (default 4) members, read by $RAIDSCOPE_BENCH_JOBS (default 2) jobs.
# Rounds of at least 60 s: the charts show the last 60 s, and their cost
# grows until that window has filled (shorter rounds measure less).
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR [SECONDS] [ROUNDS] [PAGE]}
CLI=$BUILD/app/raidscope-cli
BENCH=$BUILD/tests/gui/bench_gui
LEVEL=${RAIDSCOPE_BENCH_LEVEL:-5}
N=${RAIDSCOPE_BENCH_MEMBERS:-4}
JOBS=${RAIDSCOPE_BENCH_JOBS:-2}
WORK=$(mktemp -d /tmp/raidscope-bench-gui.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
members=()
for ((i = 0; i < N; i++)); do members+=("$WORK/m$i.img"); done
"$CLI" create --level="$LEVEL" --raid-devices="$N" --create-files=256M "${members[@]}" >/dev/null
"$CLI" bench --array="$(IFS=,; echo "${members[*]}")" --name=fill --rw=write --bs=1M --iodepth=8 \
  --ioengine=io_uring --direct=1 >/dev/null
args=("$CLI" "${2:-70}" "${3:-3}" ssd-sata 0.4 "${4:-dashboard}" "$JOBS" "${members[@]}")
if [[ ${RAIDSCOPE_BENCH_DISPLAY:-0} == 1 ]]; then
  exec "$BENCH" "${args[@]}"
fi
xvfb-run -a -s "-screen 0 1600x1000x24" "$BENCH" "${args[@]}" 2>&1 | grep -v XDG_RUNTIME_DIR
