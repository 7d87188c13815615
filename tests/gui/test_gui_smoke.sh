#!/usr/bin/env bash
# raidscope's screenshot mode under Xvfb: every page of the demo renders
# with live data (not blank), the dashboard differs between two moments,
# the dark scheme and an array given by its members render too, and (when
# run as root) the demo runs as an unprivileged user.
set -euo pipefail
GUI=${1:?usage: $0 path/to/raidscope path/to/raidscope-cli path/to/rs_png_check}
CLI=${2:?}
CHECK=${3:?}
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run missing (./run.sh test installs xvfb)"; exit 77; }
WORK=$(mktemp -d /tmp/raidscope-gui.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export RAIDSCOPE_DEMO_DIR=$WORK/demo RAIDSCOPE_RESULTS_DIR=$WORK/results XDG_CONFIG_HOME=$WORK/config
ART=${RAIDSCOPE_ARTIFACTS:-/tmp}
mkdir -p "$ART"
shot() {  # shot NAME ARGS...: one screenshot under a fresh Xvfb
  local name=$1; shift
  xvfb-run -a -s "-screen 0 1600x1000x24" "$GUI" --screenshot="$WORK/$name.png" --profile-scale=0.25 "$@" 2>&1 |
    grep -v XDG_RUNTIME_DIR || true
  [[ -s $WORK/$name.png ]] || { echo "FAIL: no screenshot $name"; exit 1; }
  cp "$WORK/$name.png" "$ART/raidscope-$name.png"
}
# First start prepares the demo (256 MiB per member, written once).
shot dashboard-early --demo --page=dashboard --after=3
shot dashboard --demo --page=dashboard --after=6
"$CHECK" "$WORK/dashboard.png" "$WORK/dashboard-early.png"
for page in tune arrays benchmark history; do
  shot "$page" --demo --page=$page --after=4
  "$CHECK" "$WORK/$page.png"
done
shot dashboard-dark --demo --color-scheme=dark --after=4
"$CHECK" "$WORK/dashboard-dark.png"
"$CLI" create --level=1 --raid-devices=2 --create-files=16M "$WORK"/a.img "$WORK"/b.img >/dev/null
shot members --page=arrays --after=2 "$WORK"/a.img "$WORK"/b.img
"$CHECK" "$WORK/members.png"
# A RAID6: the Arrays page's stripe layout (P and Q per stripe), for a look.
r6=("$WORK"/r6-{0..4}.img)
"$CLI" create --level=6 --raid-devices=5 --create-files=16M "${r6[@]}" >/dev/null
shot raid6 --page=arrays --after=2 --size=1280x800 "${r6[@]}"
"$CHECK" "$WORK/raid6.png"
# Image files need no root: run as root, the demo runs again as nobody
# (setpriv, no capabilities) in a folder nobody owns, and its member files
# are made, owned and driven by that user. The build tree may be where that
# user cannot go (a clone under /root or in a mktemp -d folder, mode 0700),
# so the user runs a copy laid out as an installed one: bin/raidscope and
# share/raidscope/ (its profiles and scenarios), from a folder of its own.
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
  U=$(mktemp -d /tmp/raidscope-gui-user.XXXXXX)
  trap 'rm -rf "$WORK" "$U"' EXIT
  SRC=$(cd "$(dirname "$0")/../.." && pwd)
  if ! { mkdir -p "$U/bin" "$U/share/raidscope" && cp "$GUI" "$U/bin/raidscope" &&
    cp -r "$SRC/resources/." "$U/share/raidscope/" && chmod -R a+rX "$U/bin" "$U/share"; }; then
    echo "SKIP: cannot copy the program to $U for the unprivileged run (the rest passed)"
    exit 77
  fi
  chmod 755 "$U" && chown 65534:65534 "$U"
  (cd "$U" && setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    env HOME="$U" RAIDSCOPE_DEMO_DIR="$U/demo" RAIDSCOPE_RESULTS_DIR="$U/results" \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$U/bin/raidscope" --demo --screenshot="$U/user.png" --after=4 \
    --profile-scale=0.25 2>&1 | grep -v XDG_RUNTIME_DIR) || true
  [[ -s $U/user.png ]] || { echo "FAIL: the demo did not run as an unprivileged user"; exit 1; }
  [[ $(stat -c %u "$U/demo/member0.img") == 65534 ]] || { echo "FAIL: the demo's files are not the user's"; exit 1; }
  "$CHECK" "$U/user.png"
  cp "$U/user.png" "$ART/raidscope-unprivileged.png"
fi
# Bad usage: exit 2 with a message, no window.
if "$GUI" --page=nowhere >/dev/null 2>"$WORK/err"; then echo "FAIL: --page=nowhere accepted"; exit 1; fi
grep -q "one of dashboard" "$WORK/err" || { echo "FAIL: no usage message"; cat "$WORK/err"; exit 1; }
echo "ok: every page rendered with live data (screenshots in $ART)"
