#!/usr/bin/env bash
# Runs a GUI test program in a fresh Xvfb display (1× scale, 24-bit);
# skipped (77) where xvfb-run is missing.
set -euo pipefail
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run missing (./run.sh test installs xvfb)"; exit 77; }
exec xvfb-run -a -s "-screen 0 1600x1000x24" "$@"
