# Sourced by bench_nbd.sh and bench_nbd_bound.sh: starting and stopping the
# servers fio's nbd engine is pointed at, and what a process or the machine
# spent on the CPU meanwhile. Needs WORK (the work directory) set.
SERVER_PID=
stop_server() {
  [[ -n $SERVER_PID ]] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}
# wait_listening SOCKET: until a connect succeeds (a socket file can be there before its listen()).
wait_listening() {
  local i
  for ((i = 0; i < 100; i++)); do
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$(basename "$0"): nothing listens on $1" >&2
  exit 1
}
# start_ours BINARY SOCKET MEMBER...: raidscope-cli serve of the array, export name raid1.
start_ours() {
  local bin=$1 sock=$2
  shift 2
  rm -f "$sock"
  "$bin" serve --nbd=unix:"$sock" --name=raid1 "$@" </dev/null >>"$WORK/serve.log" 2>&1 &
  SERVER_PID=$!
  wait_listening "$sock"
}
# start_nbdkit SOCKET PLUGIN ARGS...: nbdkit in the foreground (SERVER_PID is nbdkit itself).
start_nbdkit() {
  local sock=$1
  shift
  rm -f "$sock"
  nbdkit --foreground --unix="$sock" "$@" </dev/null >>"$WORK/nbdkit.log" 2>&1 &
  SERVER_PID=$!
  wait_listening "$sock"
}
mibs() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(j["read"]["bw_bytes"] for j in d["jobs"]) / 2**20)' "$1"; }
# drop_cache FILE: the file's pages out of the page cache (GNU dd: nocache with count=0 is the whole file).
drop_cache() { dd if="$1" iflag=nocache count=0 status=none; }
cached() { fincore --bytes --noheadings --output=RES "$1" 2>/dev/null | tr -d ' ' || echo "?"; }
# cpu_ticks PID: the process's user+system time so far, all its threads, in clock ticks.
cpu_ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
# machine_ticks: "busy total" jiffies of all CPUs (busy: neither idle nor iowait).
machine_ticks() { awk '/^cpu / {t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t}' /proc/stat; }
