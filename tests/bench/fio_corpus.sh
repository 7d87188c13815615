#!/usr/bin/env bash
# The issue-16 corpus (tests/fio-jobs/engines/*.fio) with fio and with
# raidscope-cli bench on the same 256 MiB file, the jobs' sizes scaled up
# (SCALE, see fio_corpus.py): median of ROUNDS (default 3) alternating rounds
# per job, IOPS ratio ours/fio. Run by hand, never by CI.
#
#   tests/bench/fio_corpus.sh RAIDSCOPE_CLI [WORKDIR]
#
# ROUNDS=3  RUNTIME=3 (seconds per run)  SCALE=32 (sizes times this, capped to 256 MiB)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -ge 1 && -x $1 ]] || { echo "usage: $0 RAIDSCOPE_CLI [WORKDIR]" >&2; exit 2; }
command -v fio >/dev/null || { echo "fio is not installed: skipped" >&2; exit 77; }
RS=$(realpath "$1")
WORK=$(mktemp -d "${2:-${TMPDIR:-/var/tmp}}/fio_corpus.XXXXXX")
trap 'rm -rf -- "$WORK"' EXIT
[[ $(stat -f -c %T "$WORK") != tmpfs ]] || { echo "$WORK is on tmpfs; pass a WORKDIR on a real disk" >&2; exit 2; }
dd if=/dev/urandom of="$WORK/target" bs=1M count=256 status=none
cd "$WORK"
python3 "$here/fio_corpus.py" --rs "$RS" --corpus "$here/../fio-jobs/engines" --target "$WORK/target" \
  --rounds "${ROUNDS:-3}" --runtime "${RUNTIME:-3}" --scale "${SCALE:-32}"
