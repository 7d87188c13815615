#!/usr/bin/env bash
# fio's default file (issue 28, #1): a job without filename= or directory=
# does its I/O on ./JOBNAME.JOBNUM.FILENUM in the current directory, laid
# out as fio lays it out. Checked against fio itself on the same options.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# run_both DIR ARGS...: fio in DIR/fio, bench in DIR/rs, JSON output in each.
run_both() {
  local d=$1; shift
  mkdir -p "$d/fio" "$d/rs"
  (cd "$d/fio" && fio "$@" --output-format=json --output=out.json >out.txt 2>err.txt) ||
    fail "fio $* failed: $(cat "$d/fio/err.txt")"
  (cd "$d/rs" && "$CLI" bench "$@" --output-format=json --output=out.json >out.txt 2>err.txt) ||
    fail "bench $* failed: $(cat "$d/rs/err.txt")"
}
# listing DIR: the files a run left, with their sizes.
listing() { (cd "$1" && find . -maxdepth 1 -type f ! -name 'out.*' ! -name 'err.*' -printf '%f %s\n' | sort); }
kbytes() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(str(j[sys.argv[2]]["io_kbytes"]) for j in d["jobs"]))' "$@"; }

# A write job: ./foo.0.0 of size=, as fio makes it.
run_both w --name=foo --size=1m --rw=write --bs=4k
[[ $(listing w/fio) == "foo.0.0 1048576" ]] || fail "fio made $(listing w/fio), expected foo.0.0 1048576"
[[ $(listing w/rs) == "$(listing w/fio)" ]] || fail "bench made '$(listing w/rs)', fio '$(listing w/fio)'"
[[ $(kbytes w/rs/out.json write) == "$(kbytes w/fio/out.json write)" ]] ||
  fail "bench wrote $(kbytes w/rs/out.json write) KiB, fio $(kbytes w/fio/out.json write)"
pass "a job without filename= writes ./foo.0.0 as fio"

# Two clones and a second job that reads (t0007's kind: rw=read:512k): each
# clone its own file, the reader's file laid out first.
run_both r --name=foo --size=256k --rw=write --bs=4k --numjobs=2 --name=bar --size=1m --rw=read:64k --bs=64k
[[ $(listing r/rs) == "$(listing r/fio)" ]] || fail "bench made '$(listing r/rs)', fio '$(listing r/fio)'"
[[ $(kbytes r/rs/out.json read) == "$(kbytes r/fio/out.json read)" ]] ||
  fail "bench read $(kbytes r/rs/out.json read) KiB per job, fio $(kbytes r/fio/out.json read)"
pass "clones and a reading job get fio's default files: $(listing r/rs | tr '\n' ' ')"
