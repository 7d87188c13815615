#!/usr/bin/env bash
# The load generator's own cost per I/O against fio's (issue 28), measured
# side by side in one run; not a test (no time is asserted), run by hand:
#  1. ioengine=null 4k randread at QD1 and QD16: IOPS and mean clat of
#     `raidscope-cli bench` and of fio (goals: IOPS >= 1.0x fio's, mean
#     clat <= 2x fio's). fio's null engine completes an I/O at commit, so
#     these are each tool's own submit/complete costs.
#  2. RAID1 of two image files, 4k randread QD32 (io_uring, direct): the
#     engine through the array against fio reading the two member files
#     with the same job, once with fio's defaults (goal >= 1.0) and once
#     with fixedbufs=1 (goal >= 0.95), as the engine registers its buffers.
#     Both keep 32 reads in flight in all (fio: one job, iodepth 32 over
#     both files, the next file each I/O) over the same byte range of each
#     member. Printed with it: the disk under WORKDIR during each tool (its
#     reads/s, mean queue and read wait from /proc/diskstats, as iostat -x)
#     and the engine's read share and mean pending I/O per member. WORKDIR
#     on tmpfs (/dev/shm, where O_DIRECT works on recent kernels) puts the
#     members in RAM: a CPU-bound run, not a disk-bound one.
# Each round runs the tools one after the other, which one first
# alternating; per workload the median of the round-by-round ratios and of
# each tool's figures is printed. Run it on a quiet machine, and say the
# load average it prints.
#
#   tests/bench/bench_io_cost.sh RAIDSCOPE_CLI [WORKDIR]
#
# ROUNDS=5           rounds per workload
# NULL_RUNTIME=2     seconds per null run
# RAID_RUNTIME=5     seconds per RAID1 run
# PART=all|null|raid1  which workloads (each part fits a short window)
# MEMBER_MB=600      size of each RAID1 member image (WORKDIR: a real disk)
set -euo pipefail
RS=${1:?usage: bench_io_cost.sh RAIDSCOPE_CLI [WORKDIR]}
[[ -x $RS ]] || { echo "bench_io_cost: $RS is not an executable" >&2; exit 2; }
RS=$(realpath "$RS")
ROUNDS=${ROUNDS:-5} NULL_RUNTIME=${NULL_RUNTIME:-2} RAID_RUNTIME=${RAID_RUNTIME:-5}
PART=${PART:-all} MEMBER_MB=${MEMBER_MB:-600}
case $PART in all | null | raid1) ;; *) echo "bench_io_cost: PART=$PART is not all, null or raid1" >&2; exit 2 ;; esac
command -v fio >/dev/null || { echo "bench_io_cost: fio is not installed: skipped" >&2; exit 77; }
command -v python3 >/dev/null || { echo "bench_io_cost: python3 is missing: skipped" >&2; exit 77; }
WORK=$(mktemp -d "${2:-${TMPDIR:-/var/tmp}}/bench_io_cost.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "raidscope-cli $RS ($(git -C "$(dirname "$RS")" rev-parse --short HEAD 2>/dev/null || echo '?')), $(fio --version)"
echo "rounds $ROUNDS, null runs ${NULL_RUNTIME}s, RAID1 runs ${RAID_RUNTIME}s; load at start: $(load)"

# figure JSON FIELD: the jobs' read IOPS summed ("iops") or their mean clat
# in ns, weighted by I/Os ("clat").
figure() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
if sys.argv[2] == "iops":
    print(sum(j["read"]["iops"] for j in jobs))
else:
    n = sum(j["read"]["total_ios"] for j in jobs)
    print(sum(j["read"]["clat_ns"]["mean"] * j["read"]["total_ios"] for j in jobs) / max(n, 1))
EOF
}
ratio() { python3 -c "import sys; print(float(sys.argv[1]) / float(sys.argv[2]))" "$1" "$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

null_part() {
  local qd r
  for qd in 1 16; do
    local job=(--name=null --ioengine=null --rw=randread --bs=4k --iodepth=$qd --size=1g --time_based
      --runtime=$NULL_RUNTIME --output-format=json)
    local ri=() rc=() fi=() fc=() iops_r=() clat_r=()
    for ((r = 1; r <= ROUNDS; r++)); do
      if ((r % 2)); then fio "${job[@]}" --output=f.json; "$RS" bench "${job[@]}" --output=b.json
      else "$RS" bench "${job[@]}" --output=b.json; fio "${job[@]}" --output=f.json; fi
      local bi bc fio_i fio_c
      bi=$(figure b.json iops) bc=$(figure b.json clat) fio_i=$(figure f.json iops) fio_c=$(figure f.json clat)
      ri+=("$bi") rc+=("$bc") fi+=("$fio_i") fc+=("$fio_c")
      iops_r+=("$(ratio "$bi" "$fio_i")") clat_r+=("$(ratio "$bc" "$fio_c")")
      printf 'null QD%-2d round %d: bench %9.0f IOPS clat %7.1f ns | fio %9.0f IOPS clat %7.1f ns | IOPS ratio %.3f, clat ratio %.2f\n' \
        "$qd" "$r" "$bi" "$bc" "$fio_i" "$fio_c" "${iops_r[-1]}" "${clat_r[-1]}"
    done
    printf 'null QD%-2d median: bench %.0f IOPS, clat %.1f ns; fio %.0f IOPS, clat %.1f ns; IOPS ratio %.3f (goal >= 1.0), clat ratio %.2f (goal <= 2)\n' \
      "$qd" "$(median "${ri[@]}")" "$(median "${rc[@]}")" "$(median "${fi[@]}")" "$(median "${fc[@]}")" \
      "$(median "${iops_r[@]}")" "$(median "${clat_r[@]}")"
  done
}

# The block device holding WORKDIR, as "major minor", or nothing (tmpfs).
work_disk() {
  local dev
  dev=$(stat -c %d "$WORK")
  (((dev >> 8 & 0xfff) == 0)) && return 0
  echo "$((dev >> 8 & 0xfff)) $(((dev & 0xff) | (dev >> 12 & 0xfff00)))"
}
# disk_mark FILE: the disk's read counters now (reads, ms reading, weighted
# ms in queue) and the time, for disk_figures.
disk_mark() {
  [[ -n $DISK ]] || return 0
  awk -v M="${DISK% *}" -v m="${DISK#* }" '$1 == M && $2 == m {print $4, $7, $14}' /proc/diskstats >"$1"
  date +%s%N >>"$1"
}
# disk_figures BEFORE AFTER: "reads/s aqu-sz r_await_ms" over the run, as iostat -x.
disk_figures() {
  python3 - "$1" "$2" <<'EOF'
import sys
def mark(path):
    lines = open(path).read().split("\n")
    return [int(v) for v in lines[0].split()], int(lines[1])
(r0, ms0, q0), t0 = mark(sys.argv[1])
(r1, ms1, q1), t1 = mark(sys.argv[2])
secs = (t1 - t0) / 1e9
print((r1 - r0) / secs, (q1 - q0) / 1e3 / secs, (ms1 - ms0) / max(r1 - r0, 1))
EOF
}
# members JSON: per member "path share mean_pending", from bench's raidscope section.
members() {
  python3 -c 'import json, sys
for m in json.load(open(sys.argv[1]))["jobs"][0]["raidscope"]["members"]:
    print(m["path"], m["read_share"], m["mean_pending"])' "$1"
}
# range V...: "min-max" of the values, 3 decimals.
range() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | xargs printf '%.3f-%.3f'; }

raid1_part() {
  "$RS" create --level=1 --raid-devices=2 --create-files="${MEMBER_MB}M" m0.img m1.img >/dev/null
  # Written through once, so that reads reach the disk (holes read as zeros).
  "$RS" bench --array=m0.img,m1.img --name=fill --rw=write --bs=1M --iodepth=8 --direct=1 >/dev/null 2>&1
  local data_offset size
  read -r data_offset size < <("$RS" detail --json m0.img m1.img |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["data_offset_bytes"], d["size_bytes"] >> 20 << 20)')
  DISK=$(work_disk)
  local where="on disk ${DISK/ /:}"
  [[ -n $DISK ]] || where="on no block device (no disk figures)"
  [[ $(stat -f -c %T "$WORK") == tmpfs ]] && where="on tmpfs: the members are in RAM, a CPU-bound run, not a disk-bound one"
  echo "RAID1: two ${MEMBER_MB} MiB member files, data at byte $data_offset, $((size >> 20)) MiB of each read; $where; load $(load)"
  local job=(--name=r --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=1 --runtime=$RAID_RUNTIME
    --time_based --randrepeat=0 --output-format=json)
  # The engine reads the array's `size` bytes: [data_offset, +size) of each
  # member. fio divides a job's size between its files, so twice the size
  # gives each member file that same range (with `size` alone fio read
  # half of each member).
  # watched OUT CMD...: runs CMD, marking the disk's counters 1 s into the
  # run and 1 s before its end (the whole run when shorter than 3 s), so
  # that start-up and wind-down stay out of the disk figures.
  watched() {
    local out=$1 pid
    shift
    if ((RAID_RUNTIME < 3)); then
      disk_mark "${out}0"; "$@"; disk_mark "${out}1"
      return
    fi
    "$@" & pid=$!
    sleep 1; disk_mark "${out}0"; sleep $((RAID_RUNTIME - 2)); disk_mark "${out}1"
    wait "$pid"
  }
  engine() { watched e "$RS" bench --array=m0.img,m1.img "${job[@]}" --size="$size" --output=e.json 2>/dev/null; }
  fio_run() { # OUT [OPTION...]
    local out=$1
    shift
    watched "$out" fio --filename=m0.img:m1.img --offset="$data_offset" "${job[@]}" --size=$((2 * size)) "$@" \
      --output="$out.json" >/dev/null
  }
  local r ei=() fi=() xi=() rf=() rx=() ec=() fc=() m0s=() m0p=() m1p=() m=()
  for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then fio_run f; engine; fio_run x --fixedbufs=1
    else fio_run x --fixedbufs=1; engine; fio_run f; fi
    local e f x
    e=$(figure e.json iops) f=$(figure f.json iops) x=$(figure x.json iops)
    ei+=("$e") fi+=("$f") xi+=("$x") rf+=("$(ratio "$e" "$f")") rx+=("$(ratio "$e" "$x")")
    ec+=("$(figure e.json clat)") fc+=("$(figure f.json clat)")
    mapfile -t m < <(members e.json | tr ' ' '\n')
    m0s+=("${m[1]}") m0p+=("${m[2]}") m1p+=("${m[5]}")
    printf 'RAID1 QD32 round %d: engine %7.0f IOPS | fio %7.0f (ratio %.3f) | fio fixedbufs=1 %7.0f (ratio %.3f) | load %s\n' \
      "$r" "$e" "$f" "${rf[-1]}" "$x" "${rx[-1]}" "$(load)"
    if [[ -n $DISK ]]; then
      local t figs=()
      for t in e f x; do figs+=("$(disk_figures ${t}0 ${t}1 | xargs printf '%.0f reads/s, aqu-sz %.1f, r_await %.3f ms')"); done
      printf '  disk during engine: %s | fio: %s | fio fixedbufs=1: %s\n' "${figs[@]}"
    fi
  done
  printf 'RAID1 QD32 median: engine %.0f IOPS (clat %.1f us), fio %.0f (clat %.1f us), fio fixedbufs=1 %.0f\n' \
    "$(median "${ei[@]}")" "$(python3 -c "print($(median "${ec[@]}")/1000)")" "$(median "${fi[@]}")" \
    "$(python3 -c "print($(median "${fc[@]}")/1000)")" "$(median "${xi[@]}")"
  printf 'RAID1 QD32 engine members (medians): %s read share %.3f; mean pending I/O %.1f + %.1f (iodepth 32)\n' \
    "${m[0]}" "$(median "${m0s[@]}")" "$(median "${m0p[@]}")" "$(median "${m1p[@]}")"
  printf 'RAID1 QD32 engine / fio: median ratio %.3f (goal >= 1.0), rounds %s; engine / fio fixedbufs=1: median ratio %.3f (goal >= 0.95), rounds %s\n' \
    "$(median "${rf[@]}")" "$(range "${rf[@]}")" "$(median "${rx[@]}")" "$(range "${rx[@]}")"
}

[[ $PART == raid1 ]] || null_part
[[ $PART == null ]] || raid1_part
echo "load at end: $(load)"
