#!/usr/bin/env bash
# SIGHUP (terminal closed), SIGPIPE (reader gone) and SIGUSR1, like SIGINT
# and SIGTERM, stop a command cleanly: the array is closed (every member's
# superblock says clean, so the next start needs no resync), the command
# says how far it got, and it exits 128 + the signal. Checked on `write`
# (stopped while it waits for more input) and on a time-based `bench`.
source "$(dirname "$0")/lib.sh"
M=(m0.img m1.img)
"$CLI" create --level=1 --raid-devices=2 --create-files=128M "${M[@]}" >/dev/null
# More than write's 32 MiB read-ahead, so some of it is written before the
# command waits for more input.
head -c $((40 << 20)) /dev/urandom >data

# wait_handler PID SIGNUM: until PID has its own handler for SIGNUM (the
# SigCgt mask in /proc), as a signal from outside would find it. The
# handlers are set all at once; SIGTERM's has always been there, so a
# command without a handler for SIGNUM shows it in the checks below.
wait_handler() {
  local i caught
  for ((i = 0; i < 500; i++)); do
    # The command itself, not the shell's child before its exec.
    caught=$(awk '/^Name:/ {name = $2} /^SigCgt:/ {if (name == "raidscope-cli") print $2}' /proc/$1/status \
      2>/dev/null || true)
    [[ -n $caught ]] && (((16#$caught >> ($2 - 1)) & 1)) && return 0
    kill -0 "$1" 2>/dev/null || return 0  # already done: the caller looks at how it ended
    sleep 0.01
  done
  fail "pid $1 never caught signal $2"
}

# members_clean WHAT: every member's superblock records a clean stop.
members_clean() {
  local m
  for m in "${M[@]}"; do
    "$CLI" examine "$m" >"$WORK/ex.out" || fail "$1: examine $m failed"
    grep -Eq "^ +State : clean" "$WORK/ex.out" ||
      fail "$1: $m was left $(grep -E '^ +State :' "$WORK/ex.out") (not closed cleanly)"
  done
}

for sig in HUP PIPE USR1 INT TERM; do
  num=$(kill -l $sig)
  # write: 40 MiB arrive, then the input stays open and the command waits.
  rm -f fifo && mkfifo fifo
  set +e
  "$CLI" write --offset=4096 "${M[@]}" <fifo >"$WORK/w.out" 2>"$WORK/w.err" &
  pid=$!
  exec 3>fifo
  set -e
  wait_handler $pid 15
  cat data >&3
  # Until the command has written all it read and waits for input again.
  for ((i = 0; i < 500; i++)); do
    [[ $(awk '{print $3}' /proc/$pid/stat 2>/dev/null) == S ]] &&
      grep -q pipe_read /proc/$pid/wchan 2>/dev/null && break
    sleep 0.01
  done
  kill -s $sig $pid
  set +e
  wait $pid
  status=$?
  set -e
  exec 3>&-
  members_clean "write, SIG$sig"
  [[ $status == $((128 + num)) ]] || { cat "$WORK/w.err" >&2; fail "write, SIG$sig: exit $status, expected $((128 + num))"; }
  grep -q "interrupted" "$WORK/w.err" || fail "write, SIG$sig: no word of the interruption: $(cat "$WORK/w.err")"
  written=$(grep -o "wrote [0-9]* bytes" "$WORK/w.err" | grep -o "[0-9]*" || true)
  [[ -n $written ]] || fail "write, SIG$sig: does not say how many bytes were written: $(cat "$WORK/w.err")"
  ((written > 0)) || fail "write, SIG$sig: wrote 0 bytes of the $(stat -c %s data) it read"
  "$CLI" read --offset=4096 --length=$written "${M[@]}" | cmp -s - <(head -c $written data) ||
    fail "write, SIG$sig: the $written bytes it says it wrote do not read back"
  pass "write stopped by SIG$sig: exit $status, '$(grep interrupted "$WORK/w.err")', array clean"
done

for sig in HUP PIPE USR1; do
  num=$(kill -l $sig)
  set +e
  "$CLI" bench --array=m0.img,m1.img --name=w --rw=randwrite --bs=4k --iodepth=4 --ioengine=io_uring --direct=1 \
    --size=32m --runtime=20 --time_based >"$WORK/b.out" 2>"$WORK/b.err" &
  pid=$!
  set -e
  wait_handler $pid 15
  sleep 0.5
  kill -s $sig $pid
  set +e
  wait $pid
  status=$?
  set -e
  members_clean "bench, SIG$sig"
  [[ $status == $((128 + num)) ]] || { cat "$WORK/b.err" >&2; fail "bench, SIG$sig: exit $status, expected $((128 + num))"; }
  grep -q "WRITE: bw=" "$WORK/b.out" || fail "bench, SIG$sig: printed no figures"
  pass "bench stopped by SIG$sig: exit $status, figures printed, array clean"
done

# A rebuild (add) stopped by SIGHUP or SIGUSR1 records where it got and
# resumes there, as after Ctrl-C (exit 0 if it finished first).
before=$("$CLI" read --offset=0 --length=$((64 << 20)) "${M[@]}" | sha256sum)
"$CLI" fail --member=m1.img "${M[@]}" >/dev/null
for sig in HUP USR1; do
  num=$(kill -l $sig)
  set +e
  "$CLI" add --member=new.img --create-files=128M m0.img >"$WORK/a.out" 2>"$WORK/a.err" &
  pid=$!
  set -e
  wait_handler $pid 15
  sleep 0.1
  kill -s $sig $pid 2>/dev/null || true
  set +e
  wait $pid
  status=$?
  set -e
  M=(m0.img new.img)
  members_clean "add, SIG$sig"
  [[ $status == $((128 + num)) || $status == 0 ]] || { cat "$WORK/a.err" >&2; fail "add, SIG$sig: exit $status"; }
  if [[ $status != 0 ]]; then
    grep -Eq "stopped at|interrupted" "$WORK/a.err" || fail "add, SIG$sig: no word of the stop: $(cat "$WORK/a.err")"
  fi
  pass "add stopped by SIG$sig: exit $status, array clean"
done
expect_status 0 "add resumes" -- "$CLI" add --member=new.img m0.img
[[ $("$CLI" read --offset=0 --length=$((64 << 20)) m0.img new.img | sha256sum) == "$before" ]] ||
  fail "the data changed"
"$CLI" fail --member=m0.img m0.img new.img >/dev/null
[[ $("$CLI" read --offset=0 --length=$((64 << 20)) --run new.img 2>/dev/null | sha256sum) == "$before" ]] ||
  fail "the rebuilt member does not hold the data"
pass "the stopped rebuild resumed and the rebuilt member holds the data"
