#!/usr/bin/env bash
# report: results saved by bench and simulate --save, reported as JSON and
# CSV, one result and a two-run comparison; refused input names the file and
# leaves nothing at --output. (HTML and PDF: test_report_html.sh, test_report_pdf.sh.)
source "$(dirname "$0")/lib.sh"

# Two bench runs of the null target with different block sizes: their
# figures differ, so the ratio column has something to show.
expect_status 0 "bench --save" -- "$CLI" bench --filename=null --name=randread --rw=randread --bs=4k --size=16M --save=a.json
expect_status 0 "bench --save, second run" -- "$CLI" bench --filename=null --name=randread --rw=randread --bs=64k --size=64M --save=b.json
python3 - a.json <<'PY' || fail "bench --save: the result document misses a section"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "raidscope-result" and d["format_version"] == 1 and d["kind"] == "bench", d.get("kind")
for key in ("created", "command", "host", "array", "target", "policy", "tunables", "telemetry", "events", "fio"):
    assert key in d, key
for key in ("kernel", "machine", "cpu", "cpus", "raidscope_version"):
    assert d["host"][key], key
assert d["command"][0] == "bench" and "--bs=4k" in d["command"]
job = d["fio"]["jobs"][0]
assert job["jobname"] == "randread" and job["read"]["io_bytes"] == 16 << 20, job["read"]["io_bytes"]
PY
pass "bench --save writes a result with fio's jobs and raidscope's sections"

expect_status 0 "simulate --save" -- "$CLI" simulate --scenario=seed-btrfs-rr --save=s.json
python3 - s.json <<'PY' || fail "simulate --save: the result document misses a section"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "simulate" and d["scenarios"][0]["scenario"] == "seed-btrfs-rr"
assert [t["name"] for t in d["tunables"]] == ["min_contig_read", "rot_round_down", "nonrot_round_down"]
assert d["scenarios"][0]["rows"][0]["after"]["bw_bytes"] > 0
PY
pass "simulate --save writes a simulate result"

# CSV: one row per job per run; the second run's ratio is its bandwidth over
# the first's, computed here from the two saved documents.
expect_status 0 "report csv of one result" -- "$CLI" report --format=csv --output=one.csv a.json
[[ $(wc -l <one.csv) == 2 ]] || fail "one result with one job: header and 1 row expected, got $(wc -l <one.csv) lines"
expect_status 0 "report csv of two" -- "$CLI" report --format=csv --output=two.csv a.json b.json
python3 - a.json b.json two.csv <<'PY' || fail "csv comparison figures"
import csv, json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
assert len(rows) == 2, rows
bw_a, bw_b = a["fio"]["jobs"][0]["read"]["bw_bytes"], b["fio"]["jobs"][0]["read"]["bw_bytes"]
assert float(rows[0]["read_bw_bytes"]) == bw_a and float(rows[1]["read_bw_bytes"]) == bw_b, rows
assert rows[0]["bw_ratio_vs_first"] == ""
assert abs(float(rows[1]["bw_ratio_vs_first"]) - bw_b / bw_a) < 1e-3 * bw_b / bw_a, (rows[1], bw_b / bw_a)
assert rows[0]["result"] == "a.json" and rows[1]["result"] == "b.json" and rows[1]["job"] == "randread"
PY
pass "csv: one row per job per run, ratio against the first"

# A job file with two jobs: two rows per run.
cat > two.fio <<'JOB'
[global]
filename=null
size=8M
[seq]
rw=read
bs=128k
[rand]
rw=randwrite
bs=4k
JOB
expect_status 0 "bench two jobs --save" -- "$CLI" bench two.fio --save=j2.json
expect_status 0 "report csv two jobs x two runs" -- "$CLI" report --format=csv --output=jj.csv j2.json j2.json
python3 - jj.csv <<'PY' || fail "csv of two jobs in two runs"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [(r["run"], r["job"]) for r in rows] == [("1", "seq"), ("1", "rand"), ("2", "seq"), ("2", "rand")], rows
assert rows[1]["read_bw_bytes"] == "" and float(rows[1]["write_bw_bytes"]) > 0, rows[1]
assert float(rows[2]["bw_ratio_vs_first"]) == 1.0 and float(rows[3]["bw_ratio_vs_first"]) == 1.0
PY
pass "csv: two jobs in each of two runs make four rows"

# JSON: the documents merged, with the comparison.
expect_status 0 "report json of one result" -- "$CLI" report --format=json --output=one.json a.json
python3 -c 'import json, sys; r = json.load(open("one.json")); a = json.load(open("a.json"))
assert [x["result"] for x in r["results"]] == [a] and r["comparison"][0]["bw_ratio"] is None' || fail "json of one result"
expect_status 0 "report json" -- "$CLI" report --format=json --output=two.json a.json b.json
python3 - a.json b.json two.json <<'PY' || fail "json report"
import json, sys
a, b, r = (json.load(open(p)) for p in sys.argv[1:4])
assert r["format"] == "raidscope-report" and r["kind"] == "bench"
assert [x["name"] for x in r["results"]] == ["a.json", "b.json"]
assert r["results"][0]["result"] == a and r["results"][1]["result"] == b
c = r["comparison"]
assert c[0]["bw_ratio"] is None
assert abs(c[1]["bw_ratio"] - b["fio"]["jobs"][0]["read"]["bw_bytes"] / a["fio"]["jobs"][0]["read"]["bw_bytes"]) < 1e-9
PY
pass "json: the merged documents and the comparison"

# Refusals: nothing written, the file named, an existing output untouched.
echo "keep me" > out.csv
echo '{"format": "something else"}' > other.json
printf 'not json' > junk.json
expect_status 2 "report over a non-result" -- "$CLI" report --format=csv --output=out.csv a.json other.json
expect_error_mentions "other.json"
expect_status 2 "report over a non-JSON file" -- "$CLI" report --format=csv --output=out.csv junk.json
expect_error_mentions "junk.json"
expect_status 2 "bench and simulate mixed" -- "$CLI" report --format=csv --output=out.csv a.json s.json
expect_error_mentions "s.json"
expect_error_mentions "--force"
expect_status 1 "a result that does not exist" -- "$CLI" report --format=json --output=out.csv a.json missing.json
expect_error_mentions "missing.json"
[[ $(cat out.csv) == "keep me" ]] || fail "a refused report changed the existing output"
expect_status 2 "no such format" -- "$CLI" report --format=docx --output=new.csv a.json
expect_error_mentions "docx"
expect_status 2 "no --output" -- "$CLI" report --format=csv a.json
expect_error_mentions "--output"
expect_status 2 "no results" -- "$CLI" report --format=csv --output=new.csv
expect_status 2 "output in a directory that does not exist" -- "$CLI" report --format=csv --output=nodir/x.csv a.json
expect_error_mentions "nodir"
[[ ! -e new.csv ]] || fail "a refused report left new.csv"
leftovers=$(find . -name '.*.csv.*' -o -name '.*.json.*')
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"
pass "non-results and mixed kinds refused naming the file; nothing written"

expect_status 0 "mixed kinds with --force" -- "$CLI" report --format=csv --force --output=mixed.csv a.json s.json
python3 - s.json mixed.csv <<'PY' || fail "csv of a bench and a simulate result"
import csv, json, sys
s = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
sim = [r for r in rows if r["kind"] == "simulate"]
want = 2 * sum(len(sc["rows"]) for sc in s["scenarios"])  # every row before and after
assert len(rows) == 1 + want and len(sim) == want, (len(rows), want)
assert abs(float(sim[1]["bw_bytes"]) - s["scenarios"][0]["rows"][0]["after"]["bw_bytes"]) < 1e-3
PY
pass "--force compares a bench and a simulate result"

# --save refusals: the run does not start, nothing is written.
expect_status 2 "bench --save into a missing directory" -- "$CLI" bench --filename=null --size=1M --save=nodir/r.json
expect_error_mentions "nodir"
expect_status 2 "simulate --save into a missing directory" -- "$CLI" simulate --scenario=seed-btrfs-rr --save=nodir/r.json
expect_error_mentions "nodir"
pass "--save into a directory that does not exist is refused before the run"
