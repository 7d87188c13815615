#!/usr/bin/env bash
# Ctrl-C at a random moment of add, check, repair and bench: the command
# stops within a second (exit 130, or 0 if it finished first), the array
# assembles and checks clean afterwards, the data is intact, and an
# interrupted add resumes where it stopped.
source "$(dirname "$0")/lib.sh"
"$CLI" create --level=10 --raid-devices=4 --layout=n2 --chunk=64K --create-files=256M m0.img m1.img m2.img m3.img \
  >/dev/null
head -c $((32 << 20)) /dev/urandom >data
"$CLI" write --offset=$((100 << 20)) m0.img m1.img m2.img m3.img <data 2>/dev/null

# interrupt DELAY_MS CMD...: runs CMD, sends SIGINT after DELAY_MS, checks
# the exit status and how long the stop took; leaves the status in $status.
interrupt() {
  local delay=$1; shift
  set +e
  "$@" >"$WORK/int.out" 2>"$WORK/int.err" &
  local pid=$!
  # bash starts a background command with SIGINT ignored; it counts from
  # when the command has its own handler (SigCgt bit 2), as a Ctrl-C at a
  # terminal would find it (a sanitizer build takes ~150 ms to get there).
  local i caught
  for ((i = 0; i < 500; i++)); do
    caught=$(awk '/^SigCgt:/ {print $2}' /proc/$pid/status 2>/dev/null || true)
    [[ -n $caught ]] && (((16#$caught >> 1) & 1)) && break
    sleep 0.01
  done
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  local t0=$(date +%s%N)
  kill -INT $pid 2>/dev/null
  wait $pid
  status=$?
  local t1=$(date +%s%N)
  set -e
  [[ $status == 130 || $status == 0 ]] || { cat "$WORK/int.err" >&2; fail "$1 $2: exit $status after SIGINT"; }
  (((t1 - t0) < 1500000000)) || fail "$2 took $(((t1 - t0) / 1000000)) ms to stop after SIGINT"
}

array_is_sound() {
  "$CLI" check m0.img m1.img m2.img m3.img >"$WORK/chk.out" 2>&1 || { cat "$WORK/chk.out" >&2; fail "$1: check failed"; }
  grep -q "mismatches: 0" "$WORK/chk.out" || fail "$1: $(cat "$WORK/chk.out")"
  "$CLI" read --offset=$((100 << 20)) --length=$((32 << 20)) m0.img m1.img m2.img m3.img | cmp -s - data ||
    fail "$1: the data changed"
}

for trial in 1 2 3; do
  d=$((50 + RANDOM % 400))
  interrupt $d "$CLI" check m0.img m1.img m2.img m3.img
  array_is_sound "check interrupted after $d ms"
  interrupt $d "$CLI" repair m0.img m1.img m2.img m3.img
  array_is_sound "repair interrupted after $d ms"
  interrupt $d "$CLI" bench --array=m0.img,m1.img,m2.img,m3.img --name=w --rw=randwrite --bs=4k --iodepth=8 --ioengine=io_uring \
    --offset=0 --size=64m --runtime=5 --time_based --direct=1
  [[ $status == 130 ]] && { grep -q "WRITE: bw=" "$WORK/int.out" || fail "bench printed nothing after SIGINT"; }
  array_is_sound "bench interrupted after $d ms"
done
pass "check, repair and bench stop cleanly on SIGINT at random moments"

# add: fail a member, rebuild onto a new file, interrupt, resume.
"$CLI" fail --member=m1.img m0.img m1.img m2.img m3.img >/dev/null
d=$((100 + RANDOM % 300))
interrupt $d "$CLI" add --member=new.img --create-files=256M m0.img m2.img m3.img
if [[ $status == 130 ]]; then
  grep -q "resume" "$WORK/int.err" || fail "an interrupted add does not say it resumes: $(cat "$WORK/int.err")"
  "$CLI" detail m0.img new.img m2.img m3.img 2>/dev/null | grep -q "recovering" ||
    fail "the interrupted rebuild was not recorded"
  expect_status 0 "add resumes" -- "$CLI" add --member=new.img m0.img m2.img m3.img
  grep -q "resuming the interrupted rebuild" "$WORK/last.err" || fail "add started over: $(cat "$WORK/last.err")"
fi
array_is_sound_new() {
  "$CLI" check m0.img new.img m2.img m3.img | grep -q "mismatches: 0" || fail "after the resumed rebuild: check"
  "$CLI" read --offset=$((100 << 20)) --length=$((32 << 20)) m0.img new.img m2.img m3.img | cmp -s - data ||
    fail "after the resumed rebuild: data"
}
array_is_sound_new
pass "add interrupted after $d ms (exit $status) resumes and rebuilds a clean array"
