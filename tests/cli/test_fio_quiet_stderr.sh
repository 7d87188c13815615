#!/usr/bin/env bash
# fio's informational messages where fio prints them (issue 28, #7): a new
# file laid out, psync's depth cap, buffered libaio. fio prints these on
# its output (stdout), never on stderr; fio's test suite fails a run whose
# stderr is not empty. Checked against fio itself on the same options.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# both NAME ARGS...: fio and bench in fresh directories of their own (each
# lays out its file), normal output on stdout.
both() {
  local n=$1; shift
  mkdir -p "$n.fio" "$n.rs"
  (cd "$n.fio" && fio "$@" >out 2>err) || fail "fio $*: $(cat "$n.fio/err")"
  (cd "$n.rs" && "$CLI" bench "$@" >out 2>err) || fail "bench $*: $(cat "$n.rs/err")"
  [[ ! -s $n.fio/err ]] || fail "fio printed on stderr for $*: $(cat "$n.fio/err")"
  [[ ! -s $n.rs/err ]] || fail "bench printed on stderr where fio prints nothing ($*): $(cat "$n.rs/err")"
}
# said NAME TEXT: both tools' output has TEXT (a message of fio's own).
said() {
  grep -qF -- "$2" "$1.fio/out" || fail "fio does not say '$2' for $1 (fio changed?)"
  grep -qF -- "$2" "$1.rs/out" || { cat "$1.rs/out" >&2; fail "bench does not say fio's '$2' for $1"; }
}

both lay --name=lay --filename=f.dat --size=1m --rw=read --bs=4k
said lay "lay: Laying out IO file (1 file / 1MiB)"
pass "a new file laid out: fio's message on stdout, stderr empty"

both cap --name=cap --filename=f.dat --size=1m --rw=read --bs=4k --iodepth=8
said cap "queue depth will be capped at 1"
pass "psync at iodepth=8: fio's depth note on stdout, stderr empty"

both aio --name=aio --filename=f.dat --size=1m --rw=read --bs=4k --ioengine=libaio --iodepth=4 --direct=0
pass "buffered libaio: stderr empty, as fio's"

# JSON on stdout stays one JSON document after the messages (as fio's
# test library reads it: from the first '{' line to the last '}').
mkdir -p js && (cd js && "$CLI" bench --name=js --filename=f.dat --size=1m --rw=read --bs=4k \
  --iodepth=8 --output-format=json >out 2>err) || fail "bench JSON run"
[[ ! -s js/err ]] || fail "bench JSON run printed on stderr: $(cat js/err)"
python3 - js/out <<'PY' || fail "JSON after the messages does not parse"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
last = len(lines) - lines[::-1].index("}")
json.loads("\n".join(lines[lines.index("{"):last]))
PY
pass "JSON output stays parseable with the messages"
