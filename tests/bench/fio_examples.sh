#!/usr/bin/env bash
# fio's example job files (axboe/fio examples/) with fio and with
# raidscope-cli bench, side by side (issue 16). Run by hand, never by CI:
# every file runs twice for about 2 s each (a few minutes in all).
#
#   tests/bench/fio_examples.sh RAIDSCOPE_CLI EXAMPLES_DIR [WORKDIR]
#
# EXAMPLES_DIR  fio's examples/ (e.g. `git archive` of axboe/fio's examples)
# WORKDIR       where the 256 MiB target file goes; a real disk, not tmpfs
#               (default: a fresh directory in ${TMPDIR:-/var/tmp}, removed)
# ONLY=REGEX    run only the files whose name matches
# ROUNDS=N      runs per tool and file, alternating; the median round is shown
# PLAIN_ONLY=1  only the files that use plain engines
# BEFORE_CLI=/abs/raidscope-cli  a second build run in the same rounds (fio,
#               ours, before; reversed every other round): both builds'
#               ratios against the same fio runs, both counts, and every
#               file whose verdict differs
# TARGET=ram    the target on an ext4 in RAM instead of WORKDIR (root; see
#               ram_target.sh and docs/benchmarks.md: a device that does not drift)
# How the files are prepared, and what is printed: fio_examples.py.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "fio_examples: error: $*" >&2; exit 1; }
[[ $# -ge 2 ]] || die "usage: $0 RAIDSCOPE_CLI EXAMPLES_DIR [WORKDIR]"
RS=$(realpath "$1") EX=$(realpath "$2")
[[ -x $RS ]] || die "$RS is not an executable"
[[ -d $EX ]] || die "$EX is not a directory"
BEFORE=
if [[ -n ${BEFORE_CLI:-} ]]; then
  [[ -x $BEFORE_CLI ]] || die "BEFORE_CLI=$BEFORE_CLI is not an executable"
  BEFORE=$(realpath "$BEFORE_CLI")
fi
command -v fio >/dev/null || { echo "fio is not installed: skipped" >&2; exit 77; }
command -v python3 >/dev/null || { echo "python3 is missing: skipped" >&2; exit 77; }
source "$here/ram_target.sh"
bench_workdir fio_examples "${3:-${TMPDIR:-/var/tmp}}" 2048
WORK=$BENCH_WORK
# The target: 256 MiB of data written once (neither tool lays it out).
dd if=/dev/urandom of="$WORK/target" bs=1M count=256 status=none
python3 "$here/fio_examples.py" --rs "$RS" --examples "$EX" --work "$WORK" --target "$WORK/target" \
  --only "${ONLY:-}" --rounds "${ROUNDS:-1}" ${PLAIN_ONLY:+--plain-only} --before "$BEFORE"
