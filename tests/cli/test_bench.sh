#!/usr/bin/env bash
# raidscope-cli bench and simulate as a user drives them: the null target,
# fio JSON, job files, arrays with policies, and every kind of bad input
# giving a clear message and exit status 2.
source "$(dirname "$0")/lib.sh"
SRC=${RAIDSCOPE_SOURCE_DIR:?}
CHECK_JSON="python3 $SRC/tests/tools/check_fio_json.py"

# The null target, exactly as the issue writes it (bounded by a runtime here).
"$CLI" bench --filename=null --rw=randread --bs=4k --iodepth=32 --runtime=1 --time_based >null.txt
grep -q "read: IOPS=" null.txt || { cat null.txt; fail "null target printed no IOPS line"; }
grep -q "Run status group 0" null.txt || fail "no run status group"
pass "null target"

# fio JSON of an array run, checked by the fio-schema checker.
"$CLI" create --level=1 --raid-devices=2 --create-files=32M a.img b.img >/dev/null
"$CLI" bench --array=a.img,b.img --policy=md-rr --name=rr --rw=randread --bs=4k --iodepth=8 --size=8m \
  --direct=1 --output-format=json --output=out.json
$CHECK_JSON --raidscope out.json || fail "fio JSON check"
python3 - out.json <<'PY' || fail "JSON content"
import json, sys
j = json.load(open(sys.argv[1]))
job = j["jobs"][0]
assert job["jobname"] == "rr", job["jobname"]
assert job["read"]["io_bytes"] == 8 << 20, job["read"]["io_bytes"]
assert job["raidscope"]["policy"] == "md-rr"
assert len(job["raidscope"]["members"]) == 2
# fio's defaults: every I/O submitted on its own, one completion per reap.
assert job["iodepth_submit"]["4"] == 100.0, job["iodepth_submit"]
assert job["iodepth_complete"]["4"] == 100.0, job["iodepth_complete"]
PY
pass "array bench JSON"

# fio's batching options: the first fill goes in as one batch of 8.
"$CLI" bench --array=a.img,b.img --name=batched --ioengine=io_uring --rw=randread --bs=4k --iodepth=8 --size=8m --direct=1 \
  --iodepth_batch_submit=8 --iodepth_batch_complete_max=8 --output-format=json --output=batched.json
python3 - batched.json <<'PY' || fail "batched submission JSON"
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
assert job["job options"]["iodepth_batch_submit"] == "8", job["job options"]
assert job["iodepth_submit"]["8"] > 0, job["iodepth_submit"]
assert job["read"]["io_bytes"] == 8 << 20
PY
expect_status 2 "polling completions" -- "$CLI" bench --filename=null --rw=read --size=1m --iodepth_batch_complete_min=0
expect_error_mentions "iodepth_batch_complete_min=0"
pass "iodepth_batch options"

# Reading sparse members measures the filesystem, not the disk: bench says so,
# and stops saying so once the members are written.
"$CLI" bench --array=a.img,b.img --name=sp --rw=read --bs=1M --size=4m 2>sparse.err >/dev/null
grep -q "a.img is sparse" sparse.err || { cat sparse.err; fail "no warning about the sparse member a.img"; }
"$CLI" bench --array=a.img,b.img --name=fill --rw=write --bs=1M --iodepth=4 --direct=1 >/dev/null 2>&1
"$CLI" bench --array=a.img,b.img --name=sp --rw=read --bs=1M --size=4m 2>sparse.err >/dev/null
if grep -q "sparse" sparse.err; then cat sparse.err; fail "sparse warning after the members were written"; fi
pass "sparse member warning"

# Per-member tunables: a write-mostly member serves no reads while another can.
"$CLI" bench --array=a.img,b.img --write-mostly=0 --name=wm --rw=randread --bs=4k --iodepth=4 --size=2m \
  --output-format=json --output=wm.json
python3 -c 'import json; m = json.load(open("wm.json"))["jobs"][0]["raidscope"]["members"]; assert m[0]["reads"] == 0 and m[1]["reads"] > 0, m' ||
  fail "write-mostly member served reads"
expect_status 2 "bad member index" -- "$CLI" bench --array=a.img,b.img --io-opt=7=4096 --rw=read --size=1m
expect_error_mentions "no member rd7"
pass "per-member tunables"

# A job file with two stonewalled jobs, written the way fio users write them.
cat >jobs.fio <<'JOB'
; two phases on the array
[global]
bs=64k
direct=1
size=4m

[writer]
rw=write
verify=crc32c

[reader]   # reads it back
stonewall
rw=read
JOB
"$CLI" bench --array=a.img,b.img jobs.fio >jobs.txt || { cat jobs.txt; fail "job file run"; }
grep -q "^writer: (groupid=0" jobs.txt || fail "writer job missing"
grep -q "^reader: (groupid=1" jobs.txt || fail "reader job missing (stonewall group)"
pass "job file with stonewall groups"

# Bad input: exit 2 and the problem named.
printf '[job]\nrw=read\nzonemode=bogus\n' >bad.fio
expect_status 2 "unsupported option" -- "$CLI" bench --array=a.img,b.img bad.fio
expect_error_mentions "zonemode"
expect_error_mentions ":3"
# A policy's name is read once, at the edge: refused before the array is
# opened (its members unchanged), naming every valid policy.
before=$(checksum_files a.img b.img)
expect_status 2 "unknown policy" -- "$CLI" bench --array=a.img,b.img --policy=fastest --rw=write --size=1m
expect_error_mentions "unknown read policy 'fastest'"
expect_error_mentions "md-legacy, md-rr, btrfs-pid, btrfs-rr, btrfs-qlen"
[ "$(checksum_files a.img b.img)" = "$before" ] || fail "a refused --policy changed the members"
expect_status 2 "bad tunable" -- "$CLI" bench --array=a.img,b.img --policy=btrfs-qlen --rot-round-down=3 --rw=read --size=1m
expect_error_mentions "round"
expect_status 2 "bad size" -- "$CLI" bench --array=a.img,b.img --rw=read --bs=4q
expect_error_mentions "4q"
expect_status 2 "zero iodepth" -- "$CLI" bench --filename=null --rw=read --iodepth=0 --size=1m
expect_error_mentions "iodepth"
echo '{"name": "broken", "seq_read_bw": -5' >broken.json
expect_status 2 "bad profile JSON" -- "$CLI" bench --array=a.img,b.img --member-profile=./broken.json --rw=read --size=1m
expect_error_mentions "broken.json"
cat >"$WORK/neg.json" <<'JSON'
{"name": "neg", "description": "x", "source": "x", "rotational": false, "model": "ssd", "seq_read_bw": -5,
 "seq_write_bw": 100, "read_iops": 1, "write_iops": 1, "parallelism": 1, "base_read_latency_us": 1,
 "base_write_latency_us": 1, "io_opt": 0, "logical_block_size": 512, "capacity_bytes": 1}
JSON
expect_status 2 "negative bandwidth" -- "$CLI" bench --array=a.img,b.img --member-profile="$WORK/neg.json" --rw=read --size=1m
expect_error_mentions "seq_read_bw"
expect_status 2 "unknown profile" -- "$CLI" bench --array=a.img,b.img --member-profile=floppy --rw=read --size=1m
expect_error_mentions "floppy"
expect_status 2 "unknown scenario" -- "$CLI" simulate --scenario=seed-nope
expect_error_mentions "seed-nope"
expect_status 2 "simulate unknown policy" -- "$CLI" simulate --scenario=seed-btrfs-rr --policy-after=nope
expect_error_mentions "nope"
expect_error_mentions "md-legacy, md-rr, btrfs-pid, btrfs-rr, btrfs-qlen"
expect_status 2 "simulate bad tunable" -- "$CLI" simulate --scenario=seed-btrfs-rr --min-contig-read=1000
expect_error_mentions "min_contig_read"
pass "bad input exits 2 with a message"

# simulate --json has the documented shape.
"$CLI" simulate --scenario=seed-btrfs-rr --json >sim.json
python3 - sim.json <<'PY' || fail "simulate --json shape"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["scenario"] == "seed-btrfs-rr"
row = j["rows"][0]
for k in ("label", "policy_before", "policy_after", "seed", "before", "after", "ratio"):
    assert k in row, k
for side in ("before", "after"):
    assert set(("bw_bytes", "iops", "read_share")) <= set(row[side]), row[side]
    assert len(row[side]["read_share"]) == 2
assert abs(row["ratio"] - row["after"]["bw_bytes"] / row["before"]["bw_bytes"]) < 1e-9
assert row["ratio"] >= 1.8, row["ratio"]
PY
"$CLI" simulate --list | grep -q seed-md-rr-nvme || fail "simulate --list"
pass "simulate --json and --list"
