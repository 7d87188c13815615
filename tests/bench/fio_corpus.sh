#!/usr/bin/env bash
# The issue-16 corpus (tests/fio-jobs/engines/*.fio) with fio and with
# raidscope-cli bench on the same target file, the jobs' sizes scaled up
# (SCALE, see fio_corpus.py): median of ROUNDS (default 3) alternating rounds
# per job, IOPS ratio ours/fio. Run by hand, never by CI.
#
#   tests/bench/fio_corpus.sh RAIDSCOPE_CLI [WORKDIR]
#
# ROUNDS=3  RUNTIME=3 (seconds per run)  ONLY=REGEX (file names to run)
# TARGET=disk (default): a 256 MiB file in WORKDIR, sizes x32 (SCALE).
# TARGET=ram: a 1 GiB file on an ext4 in RAM (ram_target.sh; root), sizes
#   x128, so the jobs last about as long as on the disk. Its speed does not
#   drift, so it shows the tools' own costs; WORKDIR is not used.
# TARGET_MB and SCALE override either default.
# PIN_CPU=N: both tools run under `taskset -c N`. At depth 1 on the RAM
#   target fio's job process migrates between the CPUs (thousands of times
#   a run) and its IOPS swing 94k-135k by placement; pinned, the two tools
#   agree (psync 4k randread: fio 129-135k, ours 124-135k).
# BEFORE_CLI=/abs/raidscope-cli: a second build run in the same rounds
#   (fio, ours, before; reversed every other round): each job gets both
#   builds' ratios against the same fio runs, and the summary both counts
#   and every job whose verdict differs.
# SHOW_ROUNDS=1: each job's round-by-round ratios in its note (to tell a
#   steady gap from one round's drift).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -ge 1 && -x $1 ]] || { echo "usage: $0 RAIDSCOPE_CLI [WORKDIR]" >&2; exit 2; }
command -v fio >/dev/null || { echo "fio is not installed: skipped" >&2; exit 77; }
RS=$(realpath "$1")
BEFORE=
if [[ -n ${BEFORE_CLI:-} ]]; then
  [[ -x $BEFORE_CLI ]] || { echo "fio_corpus: BEFORE_CLI=$BEFORE_CLI is not an executable" >&2; exit 2; }
  BEFORE=$(realpath "$BEFORE_CLI")
fi
source "$here/ram_target.sh"
if [[ ${TARGET:-disk} == ram ]]; then
  target_mb=${TARGET_MB:-1024} scale=${SCALE:-128}
else
  target_mb=${TARGET_MB:-256} scale=${SCALE:-32}
fi
# files-naming.fio makes 4 files of the target's size next to it.
bench_workdir fio_corpus "${2:-${TMPDIR:-/var/tmp}}" $((target_mb * 6 + 1024))
WORK=$BENCH_WORK
dd if=/dev/urandom of="$WORK/target" bs=1M count="$target_mb" status=none
cd "$WORK"
python3 "$here/fio_corpus.py" --rs "$RS" --corpus "$here/../fio-jobs/engines" --target "$WORK/target" \
  --rounds "${ROUNDS:-3}" --runtime "${RUNTIME:-3}" --scale "$scale" --only "${ONLY:-}" \
  --pin-cpu "${PIN_CPU:-}" --before "$BEFORE" ${SHOW_ROUNDS:+--show-rounds}
