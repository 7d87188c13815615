#!/usr/bin/env bash
# Job-file syntax fio 3.33 accepts (issue 28, #9), run by fio and by bench
# on the same job: bsrange=MIN:MAX (fio's t0002) reads the same sizes as
# MIN-MAX. Each tool's JSON must show I/O only within the range.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

for tool in fio "$CLI bench"; do
  rm -f f.dat io.log
  # shellcheck disable=SC2086
  $tool --name=r --filename=f.dat --size=1m --rw=randread --bsrange=512:8k --write_iolog=io.log \
    --output-format=json --output=o.json >out 2>err || fail "$tool bsrange=512:8k: $(cat err)"
  python3 - io.log <<'PY' || fail "$tool: sizes outside 512..8k"
import sys
sizes = [int(l.split()[4]) for l in open(sys.argv[1]) if len(l.split()) == 5 and l.split()[2] == "read"]
assert sizes and all(512 <= s <= 8192 and s % 512 == 0 for s in sizes), sizes[:10]
assert len(set(sizes)) > 1, set(sizes)
PY
done
pass "bsrange=512:8k is MIN:MAX for both tools"

# bssplit with empty percentages (fio's t0023): the sizes without one
# share what is left; every size is used.
for tool in fio "$CLI bench"; do
  rm -f f.dat io.log
  # shellcheck disable=SC2086
  $tool --name=s --filename=f.dat --size=1m --rw=randread --norandommap=1 --bssplit=512/25:1k/:2k/:4k/ --write_iolog=io.log \
    >out 2>err || fail "$tool bssplit=512/25:1k/:2k/:4k/: $(cat err)"
  python3 - io.log <<'PY' || fail "$tool: bssplit sizes"
import sys
sizes = {int(l.split()[4]) for l in open(sys.argv[1]) if len(l.split()) == 5 and l.split()[2] == "read"}
assert sizes == {512, 1024, 2048, 4096}, sizes
PY
done
pass "bssplit=512/25:1k/:2k/:4k/: every size used by both tools"

# random_generator=lfsr with norandommap (fio's t0021): every block once.
for tool in fio "$CLI bench"; do
  rm -f f.dat io.log
  # shellcheck disable=SC2086
  $tool --name=l --filename=f.dat --size=1m --bs=4k --rw=randread --norandommap=1 --random_generator=lfsr \
    --write_iolog=io.log >out 2>err || fail "$tool lfsr: $(cat err)"
  python3 - io.log <<'PY' || fail "$tool: lfsr with norandommap did not read every block once"
import sys
offs = [int(l.split()[3]) for l in open(sys.argv[1]) if len(l.split()) == 5 and l.split()[2] == "read"]
assert sorted(offs) == list(range(0, 1 << 20, 4096)), len(set(offs))
PY
done
pass "random_generator=lfsr with norandommap: each block once, as fio"

# rw=read:512k (fio's t0007): the job ends where its next read would run
# past the file's end, as fio's fill_io_u; it does not wrap to the start.
kib() {
  rm -f o.json
  "$@" --name=h --filename=f.dat --size=16m --bs=1m --rw=read:512k --output-format=json --output=o.json \
    >out 2>err || fail "$* rw=read:512k: $(cat err)"
  python3 -c 'import json; print(json.load(open("o.json"))["jobs"][0]["read"]["io_kbytes"])'
}
f=$(kib fio) r=$(kib "$CLI" bench)
[[ $r == "$f" ]] || fail "rw=read:512k over 16 MiB: bench read $r KiB, fio $f KiB"
pass "rw=read:512k stops at the end of the file: $r KiB, as fio"
