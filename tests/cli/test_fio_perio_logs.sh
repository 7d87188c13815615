#!/usr/bin/env bash
# Per-I/O logs (issue 28, #2): write_bw_log, write_iops_log and
# write_lat_log without log_avg_msec log every I/O, as fio 3.33 does
# (io_u.c account_io_completion: per_unit_log): a bw line per I/O with
# bytes * 1e6 / clat_ns, an iops line of 1 per I/O, latencies per I/O; no
# slat lines for a synchronous engine (fio measures no submission there).
# Checked against fio itself on the same options.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

run_both() {  # run_both NAME ARGS...
  local n=$1; shift
  mkdir -p "$n.fio" "$n.rs"
  (cd "$n.fio" && fio "$@" >out 2>err) || fail "fio $*: $(cat "$n.fio/err")"
  (cd "$n.rs" && "$CLI" bench "$@" >out 2>err) || fail "bench $*: $(cat "$n.rs/err")"
}
lines() { if [[ -f $1 ]]; then wc -l <"$1"; else echo missing; fi; }

run_both w --name=w --filename=f.dat --size=64k --bs=4k --rw=write \
  --write_bw_log=x --write_iops_log=x --write_lat_log=x
for k in bw iops lat clat slat; do
  f=$(lines w.fio/x_$k.1.log) r=$(lines w.rs/x_$k.1.log)
  [[ $r == "$f" ]] || fail "x_$k.1.log: bench has $r lines, fio $f (16 writes of 4k)"
done
pass "bw, iops, lat, clat logs: a line per I/O as fio ($(lines w.rs/x_bw.1.log)); slat: $(lines w.rs/x_slat.1.log) as fio"

python3 - w.rs <<'PY' || fail "per-I/O log values"
import sys
d = sys.argv[1]
rows = lambda k: [[int(x) for x in l.split(",")] for l in open(f"{d}/x_{k}.1.log")]
bw, iops, clat = rows("bw"), rows("iops"), rows("clat")
for b, c in zip(bw, clat):
    assert len(b) == 5 and b[2:4] == [1, 4096], b      # time, value, ddir=write, bs, prio
    assert b[1] == 4096 * 1000000 // c[1], (b, c)    # fio's add_bw_sample: bytes * 1e6 / clat ns
assert all(r[1] == 1 and r[3] == 4096 for r in iops), iops
PY
pass "bw = bytes * 1e6 / clat ns and iops = 1 per line, as fio's"

# log_offset=1: the offset column, every block once.
run_both o --name=o --filename=f.dat --size=64k --bs=4k --rw=randread --log_offset=1 --write_iops_log=y
python3 - o.rs/y_iops.1.log o.fio/y_iops.1.log <<'PY' || fail "log_offset per-I/O lines"
import sys
def offs(p):
    rows = [[int(x) for x in l.split(",")] for l in open(p)]
    assert all(len(r) == 6 for r in rows), rows[:2]
    return sorted(r[4] for r in rows)
assert offs(sys.argv[1]) == offs(sys.argv[2]) == list(range(0, 65536, 4096))
PY
pass "log_offset=1: an offset per line, each block once, as fio"
