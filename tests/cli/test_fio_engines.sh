#!/usr/bin/env bash
# fio's engines and I/O modes through raidscope-cli bench (issue 16): the
# output says which engine and which I/O mode ran, never one that did not;
# psync's depth is capped at 1 with fio's note; libaio is said to run on
# io_uring; an array refuses direct=0 written out; job files from the corpus
# (tests/fio-jobs/engines) run.
source "$(dirname "$0")/lib.sh"
SRC=${RAIDSCOPE_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }

dd if=/dev/urandom of=data.img bs=1M count=16 status=none

# direct=0: the page cache, and the output says so (never O_DIRECT).
"$CLI" bench --filename=data.img --name=b --rw=randread --bs=4k --size=16m --direct=0 --runtime=1 >buf.txt 2>buf.err
grep -q "io=buffered (page cache)" buf.txt || { cat buf.txt; fail "direct=0 output does not say buffered"; }
! grep -q "O_DIRECT" buf.txt || { cat buf.txt; fail "direct=0 output claims O_DIRECT"; }
grep -q "engine=psync (pread/pwrite" buf.txt || { cat buf.txt; fail "the default engine is not psync"; }
pass "direct=0 runs buffered and says so"

"$CLI" bench --filename=data.img --name=d --rw=randread --bs=4k --size=16m --direct=1 --ioengine=io_uring \
  --iodepth=8 --runtime=1 >dir.txt
grep -q "io=direct (O_DIRECT)" dir.txt || { cat dir.txt; fail "direct=1 output does not say O_DIRECT"; }
grep -q "engine=io_uring" dir.txt || { cat dir.txt; fail "io_uring not named"; }
pass "direct=1 runs O_DIRECT and says so"

# psync with iodepth=16: fio's note, depth 1 in the IO depths line.
"$CLI" bench --filename=data.img --name=p --ioengine=psync --iodepth=16 --rw=randread --bs=4k --size=16m \
  --direct=1 --runtime=1 --output-format=json --output=p.json 2>p.err
grep -q "queue depth will be capped at 1" p.json || { cat p.json; fail "no depth note for psync"; }
python3 - p.json <<'PY' || fail "psync JSON"
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
assert job["iodepth_level"]["1"] == 100.0, job["iodepth_level"]
assert job["raidscope"]["engine"].startswith("psync (pread/pwrite"), job["raidscope"]["engine"]
assert job["raidscope"]["io_mode"] == "direct (O_DIRECT)", job["raidscope"]["io_mode"]
PY
pass "psync depth capped at 1"

# libaio: Linux AIO itself, said in each job's engine line, no note.
"$CLI" bench --filename=data.img --ioengine=libaio --iodepth=8 --rw=randread --bs=4k --size=16m --direct=1 \
  --runtime=1 --name=a --name=b >aio.txt 2>aio.err
! grep -q "libaio runs on io_uring" aio.err || { cat aio.err; fail "libaio said to run on io_uring"; }
[[ $(grep -c "engine=libaio (Linux AIO: io_submit/io_getevents)" aio.txt) == 2 ]] ||
  { cat aio.txt; fail "libaio jobs do not say Linux AIO ran"; }
pass "libaio runs on Linux AIO"

# posixaio: glibc's POSIX AIO itself on a file; on an array (no file
# descriptor for glibc to serve) one request in flight at a time, said so.
"$CLI" bench --filename=data.img --ioengine=posixaio --iodepth=8 --rw=randread --bs=4k --size=16m --direct=1 \
  --runtime=1 --name=x --output-format=json --output=paio.json 2>paio.err || { cat paio.err; fail "posixaio did not run"; }
python3 - paio.json <<'PY' || fail "posixaio JSON"
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
assert job["raidscope"]["engine"].startswith("posixaio (glibc POSIX AIO"), job["raidscope"]["engine"]
assert job["iodepth_level"]["8"] > 90, job["iodepth_level"]  # queued to iodepth, as fio counts it
assert job["read"]["total_ios"] > 0, job["read"]
PY
pass "posixaio runs glibc's POSIX AIO"

# An array: direct=0 written out is refused naming it; mmap too.
"$CLI" create --level=1 --raid-devices=2 --create-files=32M a.img b.img >/dev/null
expect_status 2 "array direct=0" -- "$CLI" bench --array=a.img,b.img --rw=read --size=1m --direct=0
expect_error_mentions "direct=0"
expect_error_mentions "page cache"
expect_status 2 "array mmap" -- "$CLI" bench --array=a.img,b.img --rw=read --size=1m --direct=1 --ioengine=mmap
expect_error_mentions "ioengine=mmap"
pass "array refuses buffered and mmap"
"$CLI" bench --array=a.img,b.img --ioengine=posixaio --iodepth=8 --rw=randread --bs=4k --size=8m --direct=1 \
  --runtime=1 --name=x >apaio.txt 2>apaio.err || { cat apaio.err; fail "posixaio on the array did not run"; }
grep -q "engine=posixaio, run on .*one I/O in flight per file" apaio.txt || { cat apaio.txt; fail "array posixaio line"; }
pass "posixaio on an array keeps one request in flight"

# The corpus: every job file in tests/fio-jobs/engines runs on the file.
# --force: the files before leave random bytes in data.img, and now and
# then they pass a signature probe (CI once saw "holds a hfsplus
# signature": "H+" at 1 KiB and a plausible header). The refusal itself is
# tested in test_refusals.sh and test_cli_safety.sh; here only the job
# files are.
# Files marked "corpus: own-files" name their files themselves (directory=
# corpus-files, which must exist, as in fio); ${CORPUS_BS} is theirs too.
export CORPUS_BS=4k
for f in "$SRC"/tests/fio-jobs/engines/*.fio; do
  target=(--filename=data.img)
  if grep -q "^; corpus: own-files" "$f"; then target=(); mkdir -p corpus-files; fi
  "$CLI" bench --force "${target[@]}" --runtime=1 "$f" >run.txt 2>run.err || { cat run.err; fail "$(basename "$f") did not run"; }
  grep -q "Run status group 0" run.txt || { cat run.txt; fail "$(basename "$f"): no run status"; }
done
# What those files promise: the named files exist with fio's names, and
# the logs are fio's five files. The job (8 MiB on this file) can end
# inside its first 100 ms window: then the bw and iops logs, which keep
# whole windows only, are empty, while the latency logs hold at least the
# partial window written at the end (fio's finalize_logs).
for name in named.f0 named.f3 coo.0.0 coo.0.1 ser.0 ser.1; do
  [[ -f corpus-files/$name ]] || { ls corpus-files; fail "files-naming.fio made no corpus-files/$name"; }
done
for kind in bw iops; do [[ -f corpus_$kind.1.log ]] || fail "logs.fio wrote no corpus_$kind.1.log"; done
for kind in lat clat slat; do [[ -s corpus_$kind.1.log ]] || fail "logs.fio wrote nothing in corpus_$kind.1.log"; done
pass "corpus job files run"

# --section (fio's): only the named sections of the job file run; a name
# that matches none is said; none matching at all is refused.
"$CLI" bench --force --filename=data.img --runtime=1 --section=vsync --section=mmap --section=nosuch \
  --output-format=json "$SRC/tests/fio-jobs/engines/sync-engines.fio" >sec.json 2>sec.err ||
  { cat sec.err; fail "--section did not run"; }
python3 -c 'import json,sys; names=[j["jobname"] for j in json.load(open(sys.argv[1]))["jobs"]]; assert names == ["vsync", "mmap"], names' sec.json ||
  fail "--section ran other jobs"
grep -q "section=nosuch: no job section of that name" sec.err || { cat sec.err; fail "--section typo not said"; }
expect_status 2 "no section matches" -- "$CLI" bench --filename=data.img --section=nosuch \
  "$SRC/tests/fio-jobs/engines/sync-engines.fio"
expect_error_mentions "no job section"
pass "--section runs only the named sections"

# A missing directory is named before anything is laid out.
expect_status 1 "missing directory" -- "$CLI" bench --filename="$WORK/no/such/dir/f" --rw=write --size=1g
expect_error_mentions "does not exist"
[[ ! -e "$WORK/no" ]] || fail "something was created"
pass "missing directory named"
