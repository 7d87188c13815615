#!/usr/bin/env bash
# fsync, fdatasync, sync_file_range, end_fsync, fsync_on_close (issue 28,
# #3), as fio 3.33 issues them (io_u.c get_rw_ddir, backend.c): a sync
# before the next I/O whenever the last I/O issued was a write and the
# writes so far are a multiple of N; one fsync per file at the job's end
# with end_fsync or fsync_on_close. The system calls each tool makes are
# counted with strace and compared with fio's on the same options, and
# the JSON "sync" section's total_ios (fio counts fsyncs there).
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
command -v strace >/dev/null || { echo "strace is not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# calls TOOL ARGS...: "fsync fdatasync sync_file_range json_sync_total" of one run on f.dat.
calls() {
  local tool=$1; shift
  dd if=/dev/zero of=f.dat bs=64k count=1 status=none
  # LeakSanitizer cannot run under ptrace: off for the traced run (ASan trees).
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -e trace=fsync,fdatasync,sync_file_range -o st.txt "$@" --name=s --filename=f.dat \
    --size=64k --bs=4k --output-format=json --output=o.json >out.txt 2>err.txt ||
    fail "$tool $*: $(cat err.txt)"
  local sync
  sync=$(python3 -c 'import json; print(json.load(open("o.json"))["jobs"][0]["sync"]["total_ios"])')
  echo "$(grep -c ' fsync(' st.txt) $(grep -c ' fdatasync(' st.txt) $(grep -c ' sync_file_range(' st.txt) $sync"
}

for opts in "--rw=write --fsync=4" "--rw=write --fdatasync=4" "--rw=write --sync_file_range=write:4" \
  "--rw=write --end_fsync=1" "--rw=write --fsync_on_close=1" \
  "--rw=write --fsync=4 --end_fsync=1 --fsync_on_close=1" \
  "--rw=randwrite --fsync=3 --ioengine=libaio --iodepth=4" "--rw=read --fsync=2 --end_fsync=1"; do
  # shellcheck disable=SC2086
  f=$(calls fio fio $opts) r=$(calls bench "$CLI" bench $opts)
  [[ $r == "$f" ]] || fail "$opts: bench made (fsync fdatasync sync_file_range json-sync) $r, fio $f"
  pass "$opts: $r, as fio"
done
