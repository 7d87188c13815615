#!/usr/bin/env bash
# Randomized kill trials: a writer on a RAID1, RAID10 (n2, f2, o2) or RAID5 of image
# files, with or without a write-intent bitmap, is SIGKILLed at a random moment (during data writes or superblock
# updates: the writer closes and reassembles the array every few dozen
# writes); the array must assemble (at most with a resync), every write
# acknowledged before the kill must read back, and check must find
# mismatches: 0 afterwards.
#
#   tests/soak/kill-trials.sh CLI KILL_WRITER [TRIALS]    (default 20)
# Prints the trials run and the failures; exit 1 if any failed.
set -euo pipefail
CLI=${1:?usage: kill-trials.sh CLI KILL_WRITER [TRIALS]}
WRITER=${2:?usage: kill-trials.sh CLI KILL_WRITER [TRIALS]}
TRIALS=${3:-20}
WORK=$(mktemp -d /tmp/raidscope-kill.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
# level, members, layout, write-intent bitmap chunk (- none)
shapes=("1 2 - -" "10 4 n2 -" "10 4 f2 64K" "5 3 left-symmetric -" "10 4 o2 -" "1 3 - 64K" "5 4 right-asymmetric 64K" "1 2 - 128K" "10 4 n2 64K" "5 5 left-asymmetric -")
failures=0
for ((t = 1; t <= TRIALS; t++)); do
  read -r level disks layout bitmap <<<"${shapes[$((t % ${#shapes[@]}))]}"
  rm -f m*.img log
  members=()
  for ((i = 0; i < disks; i++)); do members+=("m$i.img"); done
  opts=(--level="$level" --raid-devices="$disks" --create-files=8M)
  [[ $layout != - ]] && opts+=(--layout="$layout" --chunk=64K)
  [[ $bitmap != - ]] && opts+=(--bitmap=internal --bitmap-chunk="$bitmap")
  "$CLI" create "${opts[@]}" "${members[@]}" >/dev/null
  "$WRITER" write log $((RANDOM * 32768 + RANDOM)) "${members[@]}" 2>writer.err &
  pid=$!
  # 20..520 ms: several assemble/close cycles, the kill anywhere in them.
  sleep "0.$(printf '%03d' $((20 + RANDOM % 500)))"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  why=""
  if [[ -s writer.err ]]; then
    why="the writer failed before the kill: $(head -c 300 writer.err)"
  elif ! "$WRITER" verify log "${members[@]}" 2>verify.err; then
    why="verify: $(head -c 500 verify.err)"
  elif ! out=$("$CLI" check "${members[@]}" 2>&1) || ! grep -q "mismatches: 0" <<<"$out"; then
    why="check: $out"
  fi
  if [[ -n $why ]]; then
    failures=$((failures + 1))
    echo "trial $t (raid$level x$disks $layout, bitmap $bitmap): FAILED: $why" >&2
    mkdir -p "${KILL_TRIALS_KEEP:-/tmp}/kill-trial-$t" && cp m*.img log "${KILL_TRIALS_KEEP:-/tmp}/kill-trial-$t/" 2>/dev/null || true
  fi
done
echo "kill trials: $TRIALS run, $failures failed"
((failures == 0))
