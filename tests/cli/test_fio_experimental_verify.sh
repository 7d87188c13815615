#!/usr/bin/env bash
# experimental_verify=1 (issue 28; fio's t0025, t0026): no log of the
# writes; the verify pass replays the write pass's offsets (the generator
# as the pass began), reading where it wrote and skipping where it read,
# until the bytes written are read back. So a random write pass is read
# back in the order it was written (write_iolog shows both).
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# t0025: 128 KiB written, 128 KiB read back.
"$CLI" bench --name=job --filename=a.dat --size=128k --rw=write --verify=md5 --experimental_verify=1 \
  --output-format=json --output=o.json >/dev/null 2>err || fail "t0025: $(cat err)"
[[ ! -s err ]] || fail "t0025 stderr: $(cat err)"
python3 -c 'import json; j=json.load(open("o.json"))["jobs"][0]; assert j["read"]["io_kbytes"] == 128, j["read"]' ||
  fail "t0025: read KiB is not 128"
pass "t0025: write 128 KiB, experimental verify reads 128 KiB"

# A random write pass, twice (loops=2): each verify pass reads exactly the
# offsets its write pass wrote, in the same order.
"$CLI" bench --name=r --filename=b.dat --size=256k --rw=randwrite --loops=2 --verify=md5 --experimental_verify=1 \
  --write_iolog=b.log >/dev/null 2>err || fail "randwrite loops=2: $(cat err)"
python3 - <<'PY' || fail "the verify passes did not replay the write passes"
ops = [l.split() for l in open("b.log") if len(l.split()) == 5]
ops = [(o[2], int(o[3])) for o in ops if o[2] in ("read", "write")]
passes, cur = [], None
for op, off in ops:
    if cur is None or (op == "write" and cur[1]):
        cur = ([], [])
        passes.append(cur)
    cur[0 if op == "write" else 1].append(off)
assert len(passes) == 2, len(passes)
for w, r in passes:
    assert len(w) == 64 and r == w, (len(w), len(r))
    assert w != sorted(w), "writes were not random"
PY
pass "randwrite loops=2: each verify pass reads its pass's 64 writes in their order"

# t0026's second job: randrw, time based, experimental verify: runs clean.
"$CLI" bench --name=j2 --filename=c.dat --size=1m --rw=randrw --time_based --runtime=2 --verify=md5 \
  --experimental_verify=1 >/dev/null 2>err || fail "randrw time based: $(cat err)"
[[ ! -s err ]] || fail "randrw stderr: $(cat err)"
pass "randrw time_based experimental verify runs without error"

expect_status 2 "several files" -- "$CLI" bench --name=f --filename=x1:x2 --size=64k --rw=write --verify=md5 \
  --experimental_verify=1
expect_error_mentions "experimental_verify"
pass "several files refused, naming experimental_verify"
