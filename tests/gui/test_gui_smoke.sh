#!/usr/bin/env bash
# The GUI starts in a real window under Xvfb on an array and renders it.
set -euo pipefail
GUI=${1:?usage: $0 path/to/raidscope path/to/raidscope-cli}
CLI=${2:?}
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run missing (./run.sh test installs xvfb)"; exit 77; }
WORK=$(mktemp -d /tmp/raidscope-gui.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$CLI" create --level=1 --raid-devices=2 --create-files=16M "$WORK"/a.img "$WORK"/b.img >/dev/null
xvfb-run -a -s "-screen 0 1024x768x24" "$GUI" --screenshot="$WORK/shot.png" "$WORK"/a.img "$WORK"/b.img
[[ -s $WORK/shot.png ]] || { echo "FAIL: no screenshot"; exit 1; }
size=$(stat -c %s "$WORK/shot.png")
((size > 2000)) || { echo "FAIL: screenshot is nearly empty ($size bytes)"; exit 1; }
mkdir -p "${RAIDSCOPE_ARTIFACTS:-/tmp}" && cp "$WORK/shot.png" "${RAIDSCOPE_ARTIFACTS:-/tmp}/raidscope-gui-smoke.png"
echo "ok: GUI window rendered ($size bytes)"
