#!/usr/bin/env bash
# fio's multi-file jobs through raidscope-cli bench (issue 16): directory,
# nrfiles, filename=a:b, filename_format, numjobs' $jobnum, file_service_type,
# create_on_open, unlink. The files made and the order I/O visits them
# (write_iolog) are checked against fio's rules by hand, then, where fio is
# installed, against fio itself on the same job files.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }

# The I/O lines of an iolog (version 3: usec path action offset length),
# without the time and with the directory cut off: "name action offset length".
ios() { awk 'NF == 5 { n = split($2, p, "/"); print p[n], $3, $4, $5 }' "$1"; }
# Which file each I/O went to, in order.
file_order() { ios "$1" | awk '{ print $1 }' | tr '\n' ' '; }

job_file() {  # job_file DIR IOLOG: a job file over DIR
  cat <<EOF
[global]
bs=4k
directory=$1
write_iolog=$2

[rr]
rw=write
size=64k
nrfiles=3

[seq]
stonewall
rw=write
size=32k
nrfiles=2
file_service_type=sequential
filename_format=\$jobname-\$jobnum-\$filenum.dat

[rr2]
stonewall
rw=write
size=48k
nrfiles=3
numjobs=2
file_service_type=roundrobin:2

[shared]
stonewall
rw=randread
size=128k
filename=s1:s2

[coo]
stonewall
rw=write
size=32k
nrfiles=2
create_on_open=1
EOF
}

mkdir ours
job_file "$WORK/ours" "$WORK/ours.iolog" >ours.fio
"$CLI" bench --output-format=json --output=ours.json ours.fio 2>ours.err || { cat ours.err; fail "bench failed"; }

# Files: fio's names ($jobname.$jobnum.$filenum by default), each size /
# nrfiles bytes (64k / 3 = 21845: fio's setup_files), the shared pair 64k.
(cd ours && stat -c '%n %s' * | sort) >ours.files
cat >want.files <<'EOF'
coo.0.0 16384
coo.0.1 16384
rr.0.0 21845
rr.0.1 21845
rr.0.2 21845
rr2.0.0 16384
rr2.0.1 16384
rr2.0.2 16384
rr2.1.0 16384
rr2.1.1 16384
rr2.1.2 16384
s1 65536
s2 65536
seq-0-0.dat 16384
seq-0-1.dat 16384
EOF
diff want.files ours.files || fail "the files made differ from fio's rules"
pass "files named and sized as fio's nrfiles, filename_format, numjobs, a:b"

# roundrobin (fio's default): a new file every I/O; 21845 bytes hold 5
# whole 4k blocks, so 15 writes.
want="rr.0.0 rr.0.1 rr.0.2 rr.0.0 rr.0.1 rr.0.2 rr.0.0 rr.0.1 rr.0.2 rr.0.0 rr.0.1 rr.0.2 rr.0.0 rr.0.1 rr.0.2 "
got=$(grep -E '/rr\.0\.[0-9] ' ours.iolog > rr.iolog; file_order rr.iolog)
[[ $got == "$want" ]] || fail "roundrobin order: $got"
ios rr.iolog | awk '$1 == "rr.0.1" { print $3 }' | tr '\n' ' ' | grep -qx "0 4096 8192 12288 16384 " ||
  fail "each file's offsets do not run sequentially from 0"
pass "roundrobin: one I/O per file in turn, each file sequential from its start"

# sequential: a file to its end, then the next.
grep -E '/seq-0-[0-9].dat ' ours.iolog >seq.iolog
[[ $(file_order seq.iolog) == "seq-0-0.dat seq-0-0.dat seq-0-0.dat seq-0-0.dat seq-0-1.dat seq-0-1.dat seq-0-1.dat seq-0-1.dat " ]] ||
  fail "sequential order: $(file_order seq.iolog)"
pass "file_service_type=sequential finishes one file before the next"

# roundrobin:2: two I/Os per file before switching; clone 1 has its own files.
grep -E '/rr2\.1\.[0-9] ' ours.iolog >rr2.iolog
[[ $(file_order rr2.iolog) == "rr2.1.0 rr2.1.0 rr2.1.1 rr2.1.1 rr2.1.2 rr2.1.2 rr2.1.0 rr2.1.0 rr2.1.1 rr2.1.1 rr2.1.2 rr2.1.2 " ]] ||
  fail "roundrobin:2 order: $(file_order rr2.iolog)"
pass "file_service_type=roundrobin:2, \$jobnum per clone"

# A shared a:b pair, random reads: every block of each file once (the
# random map), 16 per file, alternating files.
grep -E '/s[12] ' ours.iolog >shared.iolog
python3 - shared.iolog <<'PY' || fail "shared files' reads"
import sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 5]
names = [r[1].rsplit("/", 1)[1] for r in rows]
assert names == ["s1", "s2"] * 16, names
for f in ("s1", "s2"):
    offs = sorted(int(r[3]) for r in rows if r[1].endswith("/" + f))
    assert offs == list(range(0, 65536, 4096)), (f, offs)
PY
pass "filename=s1:s2: each block of both files read once, files in turn"

# create_on_open: not laid out before the run (no note), made by the job.
# 15 files, 13 laid out: the two create_on_open files are not.
# fio's per-job "JOB: Laying out IO files (N files / ...)" lines, in the
# JSON's messages (fio prints them in its normal output only).
python3 - ours.json <<'PY' || fail "the layout messages do not count the 13 files laid out"
import json, re, sys
msgs = json.load(open(sys.argv[1])).get("messages", [])
n = sum(int(m.group(1)) for m in (re.search(r": Laying out IO files? \((\d+) file", s) for s in msgs) if m)
assert n == 13, msgs
PY
python3 - ours.json <<'PY' || fail "JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
jobs = {j["jobname"]: j for j in doc["jobs"]}
assert jobs["rr"]["write"]["total_ios"] == 15, jobs["rr"]["write"]["total_ios"]
assert jobs["shared"]["read"]["total_ios"] == 32, jobs["shared"]["read"]["total_ios"]
assert jobs["coo"]["write"]["io_bytes"] == 32768, jobs["coo"]["write"]["io_bytes"]
assert "2 files, file_service_type=roundrobin" in jobs["coo"]["raidscope"]["engine"], jobs["coo"]["raidscope"]
PY
pass "create_on_open files made by the job; I/O counts as fio's rules give"

# unlink=1 removes the job's files after the run; a missing directory is
# refused before anything is written.
"$CLI" bench --name=u --directory="$WORK/ours" --nrfiles=2 --size=8k --rw=write --unlink=1 >/dev/null 2>&1 ||
  fail "unlink job failed"
[[ ! -e ours/u.0.0 && ! -e ours/u.0.1 ]] || fail "unlink=1 left files"
pass "unlink=1 removes the job's files"
expect_status 1 "missing directory" -- "$CLI" bench --name=m --directory="$WORK/nowhere" --nrfiles=2 --size=8k --rw=read
expect_error_mentions "nowhere"
pass "a missing directory is refused, naming it"

mkdir empty
expect_status 2 "experimental_verify over several files" -- "$CLI" bench --name=v --directory="$WORK/empty" \
  --nrfiles=2 --size=8k --rw=write --verify=crc32c --experimental_verify=1
expect_error_mentions "experimental_verify is not supported with several files"
[[ -z $(ls empty) ]] || fail "a refused job laid out files"
pass "a refused verify job over several files lays out nothing"
"$CLI" bench --name=b --directory="$WORK/empty" --nrfiles=2 --size=256k --rw=randwrite --verify=crc32c \
  --bssplit=4k/50:16k/50 --output-format=json >bss.json 2>bss.err || fail "bssplit verify, 2 files: $(cat bss.err)"
python3 -c '
import json, sys
t = open("bss.json").read()
j = json.loads(t[t.find("{"):])["jobs"][0]
sys.exit(not (j["error"] == 0 and j["read"]["io_kbytes"] == j["write"]["io_kbytes"] > 0))' ||
  fail "bssplit verify over 2 files did not read back what it wrote"
rm -f empty/*
pass "bssplit verify over several files reads back every piece written"

# verify over several files: each file written, then read back and checked.
"$CLI" bench --name=v --directory="$WORK/empty" --nrfiles=2 --size=64k --rw=write --verify=crc32c \
  --output-format=json >verify.json 2>verify.err || fail "verify over several files failed: $(cat verify.err)"
python3 - verify.json <<'PY' || fail "verify over several files: wrong totals"
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.find("{"):])["jobs"][0]
# 2 files of 32k: 16 writes of 4k, then the 16 blocks read back.
assert j["error"] == 0, j["error"]
assert j["write"]["total_ios"] == 16 and j["read"]["total_ios"] == 16, (j["write"]["total_ios"], j["read"]["total_ios"])
PY
pass "verify over several files writes each and reads it back"

# fio itself on the same job file: the same files, the same I/O sequence
# (random reads: the same per-file counts; offsets come from fio's own
# generator).
if ! command -v fio >/dev/null; then
  echo "fio is not installed: the side-by-side part skipped"
  exit 0
fi
mkdir fio
job_file "$WORK/fio" "$WORK/fio.iolog" >fio.fio
fio --output-format=json --output=fio.json fio.fio >/dev/null 2>fio.err || { cat fio.err; fail "fio failed"; }
(cd fio && stat -c '%n %s' * | sort) >fio.files
diff fio.files ours.files || fail "files differ from fio's"
# The one-clone write jobs in full order; rr2's two clones write to the log
# side by side (in both tools), so only each file's own order is compared.
one_clone='^(rr\.0|seq-|coo\.)'
diff <(ios fio.iolog | grep -E "$one_clone") <(ios ours.iolog | grep -E "$one_clone") ||
  fail "the write jobs' I/O sequence differs from fio's"
diff <(ios fio.iolog | grep -E '^rr2' | sort -s -k1,1) <(ios ours.iolog | grep -E '^rr2' | sort -s -k1,1) ||
  fail "rr2's per-file I/O sequence differs from fio's"
diff <(ios fio.iolog | awk '/^s[12] /{ print $1, $2 }') <(ios ours.iolog | awk '/^s[12] /{ print $1, $2 }') ||
  fail "the shared files' read order differs from fio's"
pass "fio 3.33 makes the same files and visits them in the same order"
