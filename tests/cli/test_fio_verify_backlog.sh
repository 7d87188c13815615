#!/usr/bin/env bash
# verify_backlog (issue 28, #6; fio's t0005, t0006, t0008): once N written
# blocks wait, they are read back and checked before more writes; the
# blocks left at the end are checked in the verify pass, so every block
# written is read back once. Checked next to fio 3.33 on the same jobs:
# bytes read equal bytes written, and where the first read-back comes in
# the I/O order (write_iolog).
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# shape TOOL... : "read_KiB write_KiB first_read_after_N_writes errors"
shape() {
  rm -f f.dat io.log o.json
  "$@" --name=v --filename=f.dat --size=1m --bs=4k --verify=md5 --write_iolog=io.log \
    --output-format=json --output=o.json >out 2>err || fail "$* failed: $(cat err)"
  python3 - <<'PY'
import json
j = json.load(open("o.json"))["jobs"][0]
ops = [l.split()[2] for l in open("io.log") if len(l.split()) == 5]
first = ops.index("read") if "read" in ops else -1
print(j["read"]["io_kbytes"], j["write"]["io_kbytes"], first, j["error"])
PY
}
for opts in "--rw=write --ioengine=sync --verify_backlog=32" \
  "--rw=randwrite --ioengine=psync --verify_backlog=16 --verify_backlog_batch=8"; do
  # shellcheck disable=SC2086
  f=$(shape fio $opts) r=$(shape "$CLI" bench $opts)
  [[ $r == "$f" ]] || fail "$opts: bench (read KiB, write KiB, first read at, error) $r, fio $f"
  pass "$opts: $r, as fio"
done
