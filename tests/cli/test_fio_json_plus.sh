#!/usr/bin/env bash
# --output-format=json+ (issue 28, #5): fio's JSON plus "bins" (each
# non-empty latency bucket by its value in ns) in every latency object that
# shows percentiles. Next to fio 3.33 on the same jobs: the same objects
# carry bins, the bins add up to N, and each percentile is the first bin
# at which the running count reaches that share of N (fio's
# calc_clat_percentiles), so scripts such as fio's jsonplus2csv read both.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

for extra in "" "--lat_percentiles=1"; do
  # shellcheck disable=SC2086
  fio --name=x --ioengine=null --size=1m --rw=randrw $extra --output-format=json+ >f.json 2>err ||
    fail "fio json+: $(cat err)"
  # shellcheck disable=SC2086
  "$CLI" bench --name=x --ioengine=null --size=1m --rw=randrw $extra --output-format=json+ >r.json 2>err ||
    fail "bench json+: $(cat err)"
  python3 - f.json r.json <<'PY' || fail "json+ ($extra)"
import json, math, sys
def load(p):
    lines = open(p).read().splitlines()
    last = len(lines) - lines[::-1].index("}")
    return json.loads("\n".join(lines[lines.index("{"):last]))["jobs"][0]
def with_bins(j):
    return sorted(f"{d}.{k}" for d in ("read", "write", "trim") for k in ("slat_ns", "clat_ns", "lat_ns")
                  if "bins" in j[d][k])
fio, ours = load(sys.argv[1]), load(sys.argv[2])
assert with_bins(ours) == with_bins(fio), (with_bins(ours), with_bins(fio))
for name in with_bins(ours):
    d, k = name.split(".")
    o = ours[d][k]
    bins = sorted((int(v), n) for v, n in o["bins"].items())
    assert sum(n for _, n in bins) == o["N"], name
    for p, val in o["percentile"].items():
        need, run = math.ceil(float(p) / 100 * o["N"]), 0
        for v, n in bins:
            run += n
            if run >= need:
                break
        assert v == val, (name, p, v, val)
print("bins in", with_bins(ours))
PY
  pass "json+ ${extra:-(defaults)}: bins where fio has them, summing to N, percentiles from the bins"
done
