#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a
# fixed time from its seed corpus (fuzz/corpus/<target>/), printing the
# executions and findings of each. Exit 0: no findings; 1: a target crashed
# (the input is kept under <build>/findings/<target>/, turn it into a
# regression test); 77: clang++ or libFuzzer is not installed (skipped).
#   fuzz/run_fuzz.sh [--seconds N] [--build DIR] [TARGET...]
# Defaults: 60 s a target, build in ./build-fuzz, all five targets.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_PER_TARGET=60
BUILD=$PWD/build-fuzz
TARGETS=()
while (($#)); do
  case $1 in
    --seconds) SECONDS_PER_TARGET=$2; shift 2 ;;
    --seconds=*) SECONDS_PER_TARGET=${1#*=}; shift ;;
    --build) BUILD=$2; shift 2 ;;
    --build=*) BUILD=${1#*=}; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "run_fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
[[ $SECONDS_PER_TARGET =~ ^[0-9]+$ ]] && ((SECONDS_PER_TARGET > 0)) ||
  { echo "run_fuzz.sh: --seconds takes a whole number of seconds, got '$SECONDS_PER_TARGET'" >&2; exit 2; }
((${#TARGETS[@]})) || TARGETS=(fuzz_superblock fuzz_bitmap fuzz_fio_job fuzz_device_profile fuzz_nbd)

CLANG=$(command -v clang++ || true)
[[ -n $CLANG ]] || { echo "SKIPPED: clang++ is not installed (apt-get install clang)"; exit 77; }
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cpp"
"$CLANG" -fsanitize=fuzzer "$probe/p.cpp" -o "$probe/p" 2>/dev/null ||
  { echo "SKIPPED: clang++ cannot link libFuzzer (install libclang-rt-dev)"; exit 77; }

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if ! cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CLANG" \
    -DRAIDSCOPE_FUZZ=ON -DRAIDSCOPE_GUI=OFF -DRAIDSCOPE_TESTS=OFF "${launcher[@]}" >"$BUILD.log" 2>&1 ||
   ! cmake --build "$BUILD" -j"$(nproc)" --target "${TARGETS[@]}" >>"$BUILD.log" 2>&1; then
  echo "run_fuzz.sh: building the fuzz targets failed; the log:" >&2
  cat "$BUILD.log" >&2
  exit 1
fi

findings_total=0
for t in "${TARGETS[@]}"; do
  seeds=$SRC/fuzz/corpus/$t
  work=$BUILD/corpus/$t          # grows as the fuzzer finds new coverage; seeds stay untouched
  found=$BUILD/findings/$t
  mkdir -p "$work" "$found"
  log=$BUILD/$t.log
  set +e
  "$BUILD/fuzz/$t" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$found/" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  n=$(find "$found" -type f | wc -l)
  if ((rc != 0 && n == 0)); then n=1; fi  # died without leaving an input: still a finding
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  printf '%-20s %10s executions in %3d s, %s findings (%s, corpus %d inputs)\n' "$t" "$execs" "$SECONDS_PER_TARGET" "$n" \
    "${cov:-cov: ?}" "$(find "$work" -type f | wc -l)"
  if ((n)); then
    grep -m3 -E 'ERROR: |runtime error|SUMMARY' "$log" | sed 's/^/    /' || true
    find "$found" -type f | sed 's/^/    input: /'
  fi
  findings_total=$((findings_total + n))
done
((findings_total == 0)) || { echo "run_fuzz.sh: $findings_total finding(s); logs in $BUILD/<target>.log" >&2; exit 1; }
