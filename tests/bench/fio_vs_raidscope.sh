#!/usr/bin/env bash
# fio vs raidscope-cli bench, side by side (issue 4 acceptance). Run by hand,
# never by CI: it needs a few GiB of real disk and takes a few minutes.
#
#   tests/bench/fio_vs_raidscope.sh [RAIDSCOPE_CLI] [WORKDIR]
#
# RAIDSCOPE_CLI  the raidscope-cli binary (default: the first of
#                build-bench/, build/ ... under the repository that has one)
# WORKDIR        where the 1 GiB data file and the two RAID1 member images go
#                (about 3.3 GiB); must be on a real disk that supports
#                O_DIRECT (not tmpfs). Default: a fresh directory in
#                ${TMPDIR:-/var/tmp}, removed at the end.
#
# Environment:
#   RUNTIME=10   seconds per run (each tool, each workload)
#   SIZE=1g      size of the data file / the region read through the array
#   KEEP=1       keep WORKDIR (files and the JSON of every run)
#   POLICY=NAME  read policy for the RAID1 run (default: the array's own)
#   REPEAT=1     run each pair this many times in a row (fio first in odd
#                rounds, ours first in even ones) and report the median of
#                the round-by-round ratios: the host disk is noisy
#
# See docs/benchmarks.md for how to read the table.
set -euo pipefail

RUNTIME=${RUNTIME:-10}
SIZE=${SIZE:-1g}
KEEP=${KEEP:-0}
REPEAT=${REPEAT:-1}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

die() { echo "fio_vs_raidscope: error: $*" >&2; exit 1; }
log() { echo "== $*" >&2; }

# ---- tools ----
RS=${1:-}
if [[ -z $RS ]]; then
  for d in build-bench build build-out build-jobs; do
    for cand in "$repo/$d/raidscope-cli" "$repo/$d/app/cli/raidscope-cli" "$repo/$d/app/raidscope-cli"; do
      if [[ -x $cand ]]; then RS=$cand; break 2; fi
    done
  done
  [[ -n $RS ]] || die "no raidscope-cli found under $repo/build*/; build it or pass its path as the first argument"
fi
[[ -x $RS ]] || die "$RS is not an executable"
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is needed to read the JSON output"
command -v dd >/dev/null || die "dd is needed"
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME=$RUNTIME is not a whole number of seconds"
[[ $REPEAT =~ ^[0-9]+$ && $REPEAT -gt 0 ]] || die "REPEAT=$REPEAT is not a positive whole number"

# ---- work directory ----
if [[ -n ${2:-} ]]; then
  mkdir -p "$2"
  WORK=$(mktemp -d "$2/fio_vs_rs.XXXXXX")
else
  WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/fio_vs_rs.XXXXXX")
fi
cleanup() {
  local rc=$?
  if [[ $KEEP == 1 ]]; then
    echo "kept $WORK (KEEP=1)" >&2
  else
    rm -rf -- "$WORK"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fstype=$(stat -f -c %T "$WORK")
[[ $fstype != tmpfs ]] || die "$WORK is on tmpfs: O_DIRECT needs a real disk; pass a WORKDIR"

size_bytes=$(python3 - "$SIZE" <<'EOF'
import re, sys
m = re.fullmatch(r'(\d+)([kKmMgGtT]?)(i?[bB])?', sys.argv[1])
if not m: sys.exit("bad SIZE " + sys.argv[1])
print(int(m.group(1)) << {'': 0, 'k': 10, 'm': 20, 'g': 30, 't': 40}[m.group(2).lower()])
EOF
)
free_bytes=$(df -B1 --output=avail "$WORK" | tail -1 | tr -d ' ')
need=$((size_bytes * 34 / 10 + (64 << 20)))
((free_bytes > need)) || die "$WORK has $((free_bytes >> 20)) MiB free, needs about $((need >> 20)) MiB"

# The block device under WORKDIR, whose completed-I/O counters show what
# really reached the disk during each run (a tool that reported more I/O than
# the disk did would be measuring a cache, or nothing).
dev_num=$(stat -c %d "$WORK")
DISKSTAT=/sys/dev/block/$(((dev_num >> 8) & 0xfff)):$(((dev_num & 0xff) | ((dev_num >> 12) & 0xfff00)))/stat
[[ -r $DISKSTAT ]] || DISKSTAT=""
disk_ios() { [[ -n $DISKSTAT ]] && awk '{print $1 + $5}' "$DISKSTAT" || echo 0; }

DATA=$WORK/data.bin
ROWS=$WORK/rows.tsv
: >"$ROWS"
FAILED=0

echo "raidscope-cli: $RS"
echo "fio:           $(fio --version)"
echo "machine:       nproc $(nproc), kernel $(uname -r), $(uname -m); workdir $WORK ($fstype)"
echo "runtime:       ${RUNTIME}s per run, size $SIZE, $REPEAT round(s) per pair; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# run_fio NAME ARGS... : fio, JSON into $WORK/NAME.fio.json
run_fio() {
  local name=$1
  shift
  local before
  before=$(disk_ios)
  if ! fio --output-format=json --output="$WORK/$name.fio.json" "$@" 2>"$WORK/$name.fio.err"; then
    echo "fio failed ($name): fio $*" >&2
    cat "$WORK/$name.fio.err" >&2
    rm -f "$WORK/$name.fio.json"
    FAILED=1
  fi
  echo $(($(disk_ios) - before)) >"$WORK/$name.fio.disk"
}

# run_rs NAME ARGS... : raidscope-cli bench, JSON into $WORK/NAME.rs.json
run_rs() {
  local name=$1
  shift
  local rc=0 before
  before=$(disk_ios)
  "$RS" bench --output-format=json --output="$WORK/$name.rs.json" "$@" 2>"$WORK/$name.rs.err" || rc=$?
  if ((rc != 0)); then
    echo "raidscope-cli bench failed ($name), exit status $rc: $RS bench $*" >&2
    cat "$WORK/$name.rs.err" >&2
    FAILED=1
  elif [[ -s $WORK/$name.rs.err ]]; then
    echo "raidscope-cli bench ($name) said on stderr:" >&2
    cat "$WORK/$name.rs.err" >&2
  fi
  echo $(($(disk_ios) - before)) >"$WORK/$name.rs.disk"
}

# in_round_order ROUND FIO_CMD OUR_CMD: fio first in odd rounds, ours first
# in even ones, so a slow drift of the host disk favours neither tool.
in_round_order() {
  if (($1 % 2)); then eval "$2"; eval "$3"; else eval "$3"; eval "$2"; fi
}

# row LABEL NAME DIRECTION GOAL : one line of the final table
row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$ROWS"; }

# pair NAME LABEL GOAL DIRS -- COMMON OPTIONS... : fio and raidscope on $DATA
pair() {
  local name=$1 label=$2 goal=$3 dirs=$4
  shift 5
  local r opts=("$@")
  for ((r = 1; r <= REPEAT; r++)); do
    # (bash scoping: the commands see this function's locals)
    in_round_order $r \
      'log "$label: fio (round $r/$REPEAT)"
       run_fio "$name.r$r" --name="$name" --filename="$DATA" --size="$SIZE" --ioengine=io_uring "${opts[@]}"' \
      'log "$label: raidscope-cli bench (round $r/$REPEAT)"
       run_rs "$name.r$r" --name="$name" --filename="$DATA" --size="$SIZE" --ioengine=io_uring "${opts[@]}"'
  done
  local d
  for d in $dirs; do
    if [[ $dirs == *" "* ]]; then row "$label $d" "$name" "$d" "$goal"; else row "$label" "$name" "$d" "$goal"; fi
  done
}

# ---- 1. the data file, fully written ----
log "writing $SIZE of random data to $DATA"
dd if=/dev/urandom of="$DATA" bs=1M count=$((size_bytes >> 20)) iflag=fullblock oflag=direct conv=fsync status=none
[[ $(stat -c %s "$DATA") == "$size_bytes" ]] || die "$DATA is not $size_bytes bytes"

T=(--runtime="$RUNTIME" --time_based --direct=1)
# batch QD: fio's batching options, the same for both tools: submit up to QD
# I/Os per call and handle up to QD completions per reap (fio's defaults, the
# plain rows, submit and reap one at a time).
batch() { echo "--iodepth_batch_submit=$1 --iodepth_batch_complete_max=$1"; }
pair randread4k "4k randread QD32" "~1.0" "read" -- --rw=randread --bs=4k --iodepth=32 "${T[@]}"
pair randread4kb "4k randread QD32 batched" "~1.0" "read" -- --rw=randread --bs=4k --iodepth=32 $(batch 32) "${T[@]}"
pair read1m "1M read QD8" "~1.0" "read" -- --rw=read --bs=1M --iodepth=8 "${T[@]}"
pair randwrite4k "4k randwrite QD16" "~1.0" "write" -- --rw=randwrite --bs=4k --iodepth=16 "${T[@]}"
pair randwrite4kb "4k randwrite QD16 batched" "~1.0" "write" -- --rw=randwrite --bs=4k --iodepth=16 $(batch 16) "${T[@]}"
pair randrw4k "4k randrw 70/30 QD16" "~1.0" "read write" -- --rw=randrw --rwmixread=70 --bs=4k --iodepth=16 "${T[@]}"
pair randrw4kb "4k randrw 70/30 QD16 batched" "~1.0" "read write" -- --rw=randrw --rwmixread=70 --bs=4k --iodepth=16 $(batch 16) "${T[@]}"
rm -f "$DATA"

# ---- 2. the null target ----
N=(--rw=randread --bs=4k --iodepth=32 --size="$SIZE" --runtime="$RUNTIME" --time_based)
for ((r = 1; r <= REPEAT; r++)); do
  in_round_order $r \
    'log "null target: fio --ioengine=null (round $r/$REPEAT)"; run_fio "null.r$r" --name=null --ioengine=null "${N[@]}"' \
    'log "null target: raidscope-cli bench --filename=null (round $r/$REPEAT)"; run_rs "null.r$r" --filename=null "${N[@]}"'
done
row "null 4k randread QD32" null read ">=1.0"

# ---- 3. RAID1 of two fully written image files ----
A=$WORK/a.img B=$WORK/b.img
member_bytes=$((size_bytes + size_bytes / 10))
member_bytes=$(((member_bytes + (1 << 20) - 1) >> 20 << 20))
log "raidscope-cli create --level=1 --raid-devices=2 --create-files=$((member_bytes >> 20))M"
"$RS" create --level=1 --raid-devices=2 --create-files=$((member_bytes >> 20))M "$A" "$B" </dev/null >&2
"$RS" detail --json "$A" "$B" >"$WORK/detail.json"
read -r array_bytes data_offset policy < <(python3 - "$WORK/detail.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["size_bytes"], d.get("data_offset_bytes", 1 << 20), d.get("read_policy", "?"))
EOF
)
((array_bytes >= size_bytes)) || die "the array holds $array_bytes bytes, less than SIZE=$SIZE"
fill=$((array_bytes >> 20 << 20))
log "filling the array: raidscope-cli bench --array=... --rw=write --bs=1M --size=$fill"
if ! "$RS" bench --array="$A,$B" --name=fill --rw=write --bs=1M --iodepth=8 --direct=1 --size="$fill" \
    --output-format=json --output="$WORK/fill.rs.json" 2>"$WORK/fill.rs.err"; then
  cat "$WORK/fill.rs.err" >&2
  die "filling the array failed"
fi
if ((array_bytes > fill)); then
  head -c $((array_bytes - fill)) /dev/urandom | "$RS" write --offset="$fill" "$A" "$B" >/dev/null
fi
for m in "$A" "$B"; do
  alloc=$(($(stat -c %b "$m") * $(stat -c %B "$m")))
  ((alloc >= fill)) || die "$m is sparse after the fill: $alloc bytes allocated of $(stat -c %s "$m")"
done
log "array: $array_bytes bytes, data offset $data_offset, read policy $policy"

# members.fio FILE EXTRA_GLOBAL_LINES...: fio job file reading both members
members_job() {
  local out=$1
  shift
  {
    printf '%s\n' "[global]" "ioengine=io_uring" "direct=1" "rw=randread" "bs=4k" "iodepth=16" \
      "size=$size_bytes" "offset=$data_offset" "runtime=$RUNTIME" "time_based" "group_reporting" "$@"
    printf '%s\n' "" "[member0]" "filename=$A" "" "[member1]" "filename=$B"
  } >"$out"
}
members_job "$WORK/members.fio"
members_job "$WORK/members-batched.fio" iodepth_batch_submit=16 iodepth_batch_complete_max=16
[[ -z ${POLICY:-} ]] || policy=$POLICY
for ((r = 1; r <= REPEAT; r++)); do
  for mode in plain batched; do
    name=raid1 job=$WORK/members.fio extra=()
    if [[ $mode == batched ]]; then
      name=raid1b job=$WORK/members-batched.fio extra=($(batch 16))
    fi
    in_round_order $r \
      'log "RAID1 4k randread ($mode): fio, one job per member file at QD16 (round $r/$REPEAT)"
       run_fio "$name.r$r" "$job"' \
      'log "RAID1 4k randread ($mode): raidscope-cli bench --array, two jobs at QD16 (round $r/$REPEAT)"
       run_rs "$name.r$r" --array="$A,$B" ${POLICY:+--policy="$POLICY"} --name=raid1 --rw=randread --bs=4k \
         --numjobs=2 --iodepth=16 --group_reporting --size="$size_bytes" --runtime="$RUNTIME" --time_based \
         --direct=1 "${extra[@]}"'
  done
done
row "RAID1 4k randread 2x QD16 ($policy)" raid1 read ">=0.9"
row "RAID1 4k randread 2x QD16 batched ($policy)" raid1b read ">=0.9"

# ---- the table ----
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 - "$WORK" "$ROWS" "$REPEAT" <<'EOF'
import json, os, statistics, sys

work, rows, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def side(doc, d):
    """(iops, bw bytes/s, mean clat us, error) of the first job's direction d."""
    if not doc or not doc.get("jobs"):
        return None
    j = doc["jobs"][0]
    r = j.get(d, {})
    clat = r.get("clat_ns", {}).get("mean", 0) / 1000.0
    return float(r.get("iops", 0)), float(r.get("bw_bytes", 0)), clat, j.get("error", 0)

def rounds(name, tool, d):
    return [side(load(os.path.join(work, "%s.r%d.%s.json" % (name, r, tool))), d) for r in range(1, repeat + 1)]

def median_side(got):
    """Per-field median over the rounds; None unless every round gave a result."""
    if not all(got):
        return None
    return tuple(statistics.median(g[i] for g in got) for i in range(3)) + (max(g[3] for g in got),)

def paired_ratios(fio, ours, i):
    """ours/fio of field i, round by round: runs next to each other in time see
    the same host disk, so their ratio is steadier than a ratio of medians."""
    return [o[i] / f[i] for f, o in zip(fio, ours) if f[i] > 0]

def disk_per_io(name, tool):
    """Median over rounds of (I/Os the disk completed) / (I/Os the tool reported, all jobs)."""
    vals = []
    for r in range(1, repeat + 1):
        doc = load(os.path.join(work, "%s.r%d.%s.json" % (name, r, tool)))
        try:
            with open(os.path.join(work, "%s.r%d.%s.disk" % (name, r, tool))) as f:
                disk = int(f.read())
        except (OSError, ValueError):
            return "-"
        ios = sum(j[d]["total_ios"] for j in (doc or {}).get("jobs", []) for d in ("read", "write"))
        if ios:
            vals.append(disk / ios)
    return "%.2f" % statistics.median(vals) if vals and name != "null" else "-"

def bw(b):
    return "%.2f GB/s" % (b / 1e9) if b >= 1e9 else "%.1f MB/s" % (b / 1e6)

def ok(goal, r):
    if r == "-":
        return "?"
    r = float(r)
    if goal.startswith(">="):
        return "ok" if r >= float(goal[2:]) else "BELOW"
    return "ok" if 0.9 <= r <= 1.1 else "OFF"

head = ("workload", "fio IOPS", "our IOPS", "IOPS ratio", "range", "fio BW", "our BW", "BW ratio", "goal", "",
        "fio clat", "our clat", "disk/IO fio", "ours")
table = [head]
for line in open(rows):
    label, name, d, goal = line.rstrip("\n").split("\t")
    fio_r, our_r = rounds(name, "fio", d), rounds(name, "rs", d)
    f, o = median_side(fio_r), median_side(our_r)
    if not f or not o:
        table.append((label, "-" if not f else "%.0f" % f[0], "-" if not o else "%.0f" % o[0],
                      "-", "", "-", "-", "-", goal, "FAILED", "", "", "", ""))
        continue
    iops_r, bw_r = paired_ratios(fio_r, our_r, 0), paired_ratios(fio_r, our_r, 1)
    ri = "%.3f" % statistics.median(iops_r) if iops_r else "-"
    rb = "%.3f" % statistics.median(bw_r) if bw_r else "-"
    spread = "%.2f-%.2f" % (min(iops_r), max(iops_r)) if len(iops_r) > 1 else ""
    verdict = ok(goal, ri)
    if f[3] or o[3]:
        verdict += " (job error fio=%s ours=%s)" % (f[3], o[3])
    table.append((label, "%.0f" % f[0], "%.0f" % o[0], ri, spread, bw(f[1]), bw(o[1]), rb,
                  goal if goal != "~1.0" else "0.9-1.1", verdict,
                  "%.1f us" % f[2], "%.1f us" % o[2], disk_per_io(name, "fio"), disk_per_io(name, "rs")))

if repeat > 1:
    print("%d rounds: IOPS and clat are each tool's median; a ratio is the median of the %d"
          " round-by-round ratios, range their lowest and highest" % (repeat, repeat))
widths = [max(len(str(r[i])) for r in table) for i in range(len(head))]
for n, r in enumerate(table):
    print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    if n == 0:
        print("  ".join("-" * w for w in widths))
EOF

if ((FAILED)); then
  echo >&2
  echo "some runs failed (see above); the table shows them as FAILED" >&2
  exit 1
fi
