# Shared helpers for the raidscope-cli end-to-end tests. Each test script
# gets the CLI path as $1, works in its own temp dir and exits non-zero on
# the first failed expectation.
set -euo pipefail
CLI=${1:?usage: $0 path/to/raidscope-cli}
WORK=$(mktemp -d /tmp/raidscope-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
FAILS=0

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# expect_status N DESCRIPTION -- CMD...: runs CMD, checks its exit status,
# keeps its stderr in $WORK/last.err.
expect_status() {
  local want=$1 what=$2; shift 3
  set +e
  "$@" >"$WORK/last.out" 2>"$WORK/last.err"
  local got=$?
  set -e
  [[ $got == "$want" ]] || { cat "$WORK/last.err" >&2; fail "$what: exit $got, expected $want"; }
}

# expect_error_mentions TEXT: the last command's stderr names the problem.
expect_error_mentions() {
  grep -qi -- "$1" "$WORK/last.err" || { cat "$WORK/last.err" >&2; fail "error message does not mention '$1'"; }
}

checksum_files() { sha256sum "$@" | awk '{print $1}' | tr '\n' ' '; }
