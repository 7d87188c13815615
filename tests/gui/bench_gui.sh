#!/usr/bin/env bash
# The GUI's cost during a run (hand-run benchmark, not a test): makes a
# RAID1 of two written 256 MiB image files and runs bench_gui under Xvfb
# (or on $DISPLAY when RAIDSCOPE_BENCH_DISPLAY=1); the members emulate two SATA
# SSDs slowed to 0.4, so a busy host disk still feeds both.
#   tests/gui/bench_gui.sh BUILD_DIR [SECONDS=70] [ROUNDS=3] [PAGE=dashboard]
# Rounds of at least 60 s: the charts show the last 60 s, and their cost
# grows until that window has filled (shorter rounds measure less).
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR [SECONDS] [ROUNDS]}
CLI=$BUILD/app/raidscope-cli
BENCH=$BUILD/tests/gui/bench_gui
WORK=$(mktemp -d /tmp/raidscope-bench-gui.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$CLI" create --level=1 --raid-devices=2 --create-files=256M "$WORK"/m0.img "$WORK"/m1.img >/dev/null
"$CLI" bench --array="$WORK/m0.img,$WORK/m1.img" --name=fill --rw=write --bs=1M --iodepth=8 --ioengine=io_uring --direct=1 >/dev/null
if [[ ${RAIDSCOPE_BENCH_DISPLAY:-0} == 1 ]]; then
  exec "$BENCH" "$CLI" "$WORK"/m0.img "$WORK"/m1.img "${2:-70}" "${3:-3}"
fi
xvfb-run -a -s "-screen 0 1600x1000x24" "$BENCH" "$CLI" "$WORK"/m0.img "$WORK"/m1.img "${2:-70}" "${3:-3}" ssd-sata 0.4 "${4:-dashboard}" 2>&1 |
  grep -v XDG_RUNTIME_DIR
