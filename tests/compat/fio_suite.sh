#!/usr/bin/env bash
# fio's own test suite (t/run-fio-tests.py: the job tests t/jobs/t00NN and
# the Python test scripts) run twice, with the real fio and with a wrapper
# `fio` that execs `raidscope-cli bench "$@"` (issue 28), and a table of the
# two verdicts per test. Runs by hand (a full run takes tens of minutes per
# side); the short subset in tests/compat/fio_suite_short.sh is a ctest.
#
#   tests/compat/fio_suite.sh RAIDSCOPE_CLI [ARTIFACT_DIR]
#
# Where fio's suite comes from (nothing is downloaded):
#   FIO_SRC=DIR   a checkout of axboe/fio (its t/ and tools/ are copied), or
#   FIO_GIT=DIR   a git directory of axboe/fio (`git archive HEAD t tools`),
#                 default: the mirror the project's `fetch` tool makes,
#                 /work/.mirror/axboe+fio/repo. Any recent fio tree works:
#                 `git clone https://github.com/axboe/fio` gives one.
# Other settings:
#   ONLY="5 7 1006"  run only these test ids (run-fio-tests.py --run-only)
#   SIDES="fio bench" which sides to run (default both; "none": only the
#                   table, from the *.verdicts already in ARTIFACT_DIR)
#   FIO=PATH        the reference fio (default: fio on PATH, 3.33 on Debian)
#
# Skipped on both sides, as hardware- or build-only: fio's own C unit programs
# (1000 axmap, 1001 ieee754, 1002 lfsr-test, 1005 stest, 1009 unittests; they
# test fio's internals, not the tool, and are not built from a t/ copy), zbd
# on null_blk (1007, 1008), NVMe passthrough (1014, 1015, 1022, 1025); t0009
# needs 4 CPUs and run-fio-tests.py skips it itself where there are fewer.
#
# Exit: 0 when bench passes every test fio passes, 1 otherwise, 77 when fio,
# python3 or fio's suite is missing.
set -uo pipefail
die() { echo "fio_suite: error: $*" >&2; exit 2; }
skip() { echo "fio_suite: $*: skipped" >&2; exit 77; }
[[ $# -ge 1 ]] || die "usage: $0 RAIDSCOPE_CLI [ARTIFACT_DIR]"
RS=$(realpath "$1")
[[ -x $RS ]] || die "$RS is not an executable"
FIO=${FIO:-$(command -v fio || true)}
[[ -n $FIO && -x $FIO ]] || skip "fio is not installed"
command -v python3 >/dev/null || skip "python3 is missing"
SIDES=${SIDES:-fio bench}

ART=${2:-}
if [[ -z $ART ]]; then
  ART=$(mktemp -d "${TMPDIR:-/var/tmp}/fio_suite.XXXXXX")
else
  mkdir -p "$ART" && ART=$(realpath "$ART")
fi
ROOT="$ART/fio-root"
rm -rf "$ROOT" && mkdir -p "$ROOT"

# fio's t/ and tools/, from a tree or a git directory.
if [[ -n ${FIO_SRC:-} ]]; then
  [[ -f $FIO_SRC/t/run-fio-tests.py ]] || die "FIO_SRC=$FIO_SRC has no t/run-fio-tests.py"
  cp -r "$FIO_SRC/t" "$FIO_SRC/tools" "$ROOT/"
  SRC_DESC="$FIO_SRC"
else
  FIO_GIT=${FIO_GIT:-/work/.mirror/axboe+fio/repo}
  git --git-dir="$FIO_GIT" rev-parse HEAD >/dev/null 2>&1 || skip "no fio tree (set FIO_SRC or FIO_GIT)"
  git --git-dir="$FIO_GIT" archive HEAD t tools | tar -x -C "$ROOT" || die "git archive from $FIO_GIT failed"
  SRC_DESC="axboe/fio $(git --git-dir="$FIO_GIT" rev-parse --short=12 HEAD)"
fi
# run-fio-tests.py and steadystate_tests.py need statsmodels and scipy: the
# first python3 that has them (a pyenv one first on PATH may not) is the one
# the scripts' `#!/usr/bin/env python3` finds.
PY=
for p in python3 /usr/bin/python3; do
  "$p" -c 'import statsmodels, scipy' 2>/dev/null && { PY=$(command -v "$p"); break; }
done
[[ -n $PY ]] || skip "run-fio-tests.py needs python3-statsmodels and python3-scipy (apt-get install them)"
mkdir -p "$ART/pybin" && ln -sf "$PY" "$ART/pybin/python3"

# run-fio-tests.py reads fio's build configuration for its requirements:
# libaio when the reference fio has the engine; no zoned block devices.
if "$FIO" --enghelp 2>/dev/null | grep -qw libaio; then
  echo "#define CONFIG_LIBAIO" >"$ROOT/config-host.h"
else
  : >"$ROOT/config-host.h"
fi

mkdir -p "$ART/bin"
cat >"$ART/bin/fio" <<EOF
#!/bin/sh
exec "$RS" bench "\$@"
EOF
chmod +x "$ART/bin/fio"

SKIP=(1000 1001 1002 1005 1007 1008 1009 1014 1015 1022 1025)
# fio 3.33 hangs here with io_submit_mode=offload (t0010, t0013) and does not
# end on the SIGTERM run-fio-tests.py sends at its timeout, so the suite
# would wait forever: a process working in the side's artifacts for longer
# than the 600 s timeout plus a minute is killed (the test then fails as a
# timeout, as run-fio-tests.py counts it).
watchdog() { # dir
  while sleep 30; do
    for p in $(pgrep -x fio; pgrep -x raidscope-cli); do
      [[ $(readlink "/proc/$p/cwd" 2>/dev/null) == "$1"* ]] || continue
      (($(ps -o etimes= -p "$p" 2>/dev/null || echo 0) > 660)) && kill -9 "$p" 2>/dev/null
    done
  done
}
run_side() { # side fio_path
  local side=$1 exe=$2 only=()
  [[ -n ${ONLY:-} ]] && only=(--run-only $ONLY)
  rm -rf "$ART/$side"
  # The fio scripts that look for ./fio next to t/ find the side's tool.
  ln -sf "$exe" "$ROOT/fio"
  watchdog "$ART/$side" &
  local dog=$!
  (cd "$ART" && PATH="$ART/pybin:$(dirname "$exe"):$PATH" "$PY" "$ROOT/t/run-fio-tests.py" \
    -r "$ROOT" -f "$exe" -a "$ART/$side" --skip "${SKIP[@]}" "${only[@]}") \
    >"$ART/$side.log" 2>&1
  kill "$dog" 2>/dev/null
  grep -E '^Test [0-9]+ ' "$ART/$side.log" >"$ART/$side.verdicts" || true
}
for side in $SIDES; do
  case $side in
  fio) run_side fio "$FIO" ;;
  bench) run_side bench "$ART/bin/fio" ;;
  none) ;; # only the table, from the verdicts already in ARTIFACT_DIR
  *) die "unknown side $side" ;;
  esac
done

# The table: one row per test either side ran; then the counts.
"$PY" - "$ART" "$SRC_DESC" <<'EOF'
import re, sys, pathlib
art, src = pathlib.Path(sys.argv[1]), sys.argv[2]
def verdicts(side):
    out = {}
    p = art / f"{side}.verdicts"
    if not p.exists():
        return out
    for line in p.read_text().splitlines():
        m = re.match(r"Test (\d+) (PASSED|SKIPPED|FAILED)(.*)", line)
        if m:
            out[int(m.group(1))] = (m.group(2), m.group(3).strip())
    return out
fio, bench = verdicts("fio"), verdicts("bench")
ids = sorted(set(fio) | set(bench))
print(f"fio's suite: {src}; artifacts: {art}")
print(f"{'test':>5} {'fio 3.33':8} {'bench':8} description / bench's failure")
word = {"PASSED": "pass", "FAILED": "FAIL", "SKIPPED": "skip"}
lost = 0
for i in ids:
    f = fio.get(i, ("-", ""))
    b = bench.get(i, ("-", ""))
    desc = (b[1] if b[0] == "FAILED" else f[1] or b[1])[:110]
    if f[0] == "PASSED" and b[0] != "PASSED":
        lost += 1
    print(f"{i:>5} {word.get(f[0], '-'):8} {word.get(b[0], '-'):8} {desc}")
ran = lambda v: [i for i in ids if v.get(i, ("",))[0] in ("PASSED", "FAILED")]
npass = lambda v: sum(1 for i in ids if v.get(i, ("",))[0] == "PASSED")
print(f"fio passes {npass(fio)} of {len(ran(fio))}; bench passes {npass(bench)} of {len(ran(bench))}; "
      f"fio passes and bench does not: {lost}")
sys.exit(1 if lost else 0)
EOF
