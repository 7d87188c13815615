#!/usr/bin/env bash
# RaidScope: one command to set up, build and run.
#   ./run.sh            install what is missing, build, run the main job:
#                       the GUI on a demo array when a display is there,
#                       a headless demo that prints what it did otherwise
#   ./run.sh test       install what is missing, build, run the whole test suite,
#                       then the engine and CLI tests under ASan+UBSan and the
#                       threaded ones under TSan
#   ./run.sh sanitize   only the sanitizer part of `test`
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
MODE=${1:-run}

PACKAGES=(
  cmake ninja-build g++ pkg-config python3 e2fsprogs
  liburing-dev libisal-dev libblkid-dev libudev-dev libsystemd-dev nlohmann-json3-dev catch2
  qt6-base-dev qt6-declarative-dev qt6-charts-dev qt6-tools-dev
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts
  qml6-module-qtquick-templates qml6-module-qtquick-window qml6-module-qtqml
  qml6-module-qtqml-workerscript qml6-module-qtcharts qml6-module-qttest
  qml6-module-qtquick-dialogs
  fio mdadm xvfb xauth time strace
  nbdkit libnbd-bin qemu-utils qemu-system-common fuse3
  qt6-svg-dev fonts-dejavu-core poppler-utils appstream desktop-file-utils dpkg-dev groff-base
  clang libclang-rt-dev
)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  echo "run.sh: installing ${missing[*]}"
  local sudo=()
  ((EUID == 0)) || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# build DIR LABEL [cmake options...]: configures and builds quietly, as one
# progress line ("building (label): 57/149"); the full log only on failure.
build() {
  local dir=$1 label=$2; shift 2
  local targets=()
  if [[ ${1:-} == --targets=* ]]; then
    read -ra targets <<<"${1#--targets=}"
    targets=(--target "${targets[@]}")
    shift
  fi
  local log="$dir.log"
  mkdir -p "$dir"
  if ! cmake -S "$ROOT" -B "$dir" -G Ninja "$@" >"$log" 2>&1; then
    echo "run.sh: configuring $label failed; the log:" >&2
    cat "$log" >&2
    exit 1
  fi
  local tty=0
  [[ -t 1 ]] && tty=1
  ((tty)) || echo "building ($label)..."
  set +e
  cmake --build "$dir" -j"$(nproc)" "${targets[@]}" 2>&1 | tee -a "$log" | while IFS= read -r line; do
    if ((tty)) && [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      printf '\rbuilding (%s): %s/%s ' "$label" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    fi
  done
  local rc=${PIPESTATUS[0]}
  set -e
  ((tty)) && printf '\r\033[K'
  if ((rc != 0)); then
    echo "run.sh: building $label failed; the log:" >&2
    cat "$log" >&2
    exit 1
  fi
  echo "built ($label)"
}

# Every tree is a unity build: CMake compiles each target's files in groups
# of 8 as one translation unit, so the standard library, Catch2 and the
# engine's headers are parsed and instantiated once per group instead of
# once per file (the raid tests' 8 files: 15.6 s of CPU instead of 49 s).
# A developer's own tree need not be (configure without the option).
UNITY_OPTS=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
# The main tree: optimised, without debug info (-g doubles the compile time
# of a Catch2 test file; users and CI need neither).
RELEASE_OPTS=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "${UNITY_OPTS[@]}")
# The sanitizer trees: the engine, the CLI and their tests (no GUI), at -Og
# (-O1 with ASan+UBSan compiles a test file 2-3x slower for no finding -Og
# misses) with line tables so reports name file:line.
SANITIZER_OPTS=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-Og -g1" -DRAIDSCOPE_GUI=OFF -DRAIDSCOPE_WERROR=ON
  "${UNITY_OPTS[@]}")

DEMO=${RAIDSCOPE_DEMO_DIR:-$HOME/.local/share/raidscope/demo}
CLI=$ROOT/build/app/raidscope-cli

ensure_demo() {
  mkdir -p "$DEMO"
  if [[ ! -e $DEMO/member0.img ]]; then
    echo "== creating a RAID1 demo array of two image files in $DEMO"
    "$CLI" create --level=1 --raid-devices=2 --name=demo --create-files=256M "$DEMO"/member{0,1}.img
    # Written through once, so reads reach the disk (holes would read as zeros for free).
    "$CLI" bench --array="$DEMO/member0.img,$DEMO/member1.img" --name=fill --rw=write --bs=1M --iodepth=8 --ioengine=io_uring \
      --direct=1 >/dev/null
  fi
}

demo_headless() {
  local cli=$CLI demo=$DEMO
  local members=("$demo"/member{0,1}.img)
  echo "== the array"
  "$cli" detail "${members[@]}"
  echo "== writing 8 MiB of random data and reading it back"
  head -c 8388608 /dev/urandom >"$demo/sample.bin"
  "$cli" write --offset=0 "${members[@]}" <"$demo/sample.bin"
  "$cli" read --offset=0 --length=8388608 "${members[@]}" | cmp - "$demo/sample.bin" && echo "read back identical"
  echo "== checking the mirrors"
  "$cli" check "${members[@]}" 2>/dev/null
  if "$cli" simulate --list >/dev/null 2>&1; then
    echo "== seed scenario on the simulator: md-legacy vs md-rr on 2 NVMe"
    "$cli" simulate --scenario=seed-md-rr-nvme
  fi
  if "$cli" bench --help >/dev/null 2>&1; then
    # The GUI demo's before/after, headless: the members emulated as two
    # different disks (a SATA SSD and an Optane drive, slowed to a quarter
    # so the host disk is never the limit), md-legacy then md-rr.
    echo "== before/after on the demo's emulated disks (ssd-sata + optane-pmem, 1/4 speed):"
    echo "   5 s sequential 1 MiB reads, queue depth 16, md-legacy then md-rr"
    local p
    for p in md-legacy md-rr; do
      "$cli" bench --array="${members[0]},${members[1]}" --policy=$p --member-profile=0=ssd-sata \
        --member-profile=1=optane-pmem --profile-scale=0.25 --name=seqread --rw=read --bs=1M --iodepth=16 --ioengine=io_uring \
        --runtime=5 --time_based --direct=1 --output-format=json --output="$demo/bench-$p.json" 2>/dev/null ||
        { echo "   $p: bench failed"; return 0; }
    done
    python3 - "$demo/bench-md-legacy.json" "$demo/bench-md-rr.json" <<'PY'
import json, sys
res = []
for path, policy in zip(sys.argv[1:], ("md-legacy", "md-rr")):
    job = json.load(open(path))["jobs"][0]
    shares = [m["read_share"] for m in job["raidscope"]["members"]]
    res.append((policy, job["read"]["bw_bytes"], shares))
print("   %-10s %10s %14s %14s" % ("policy", "MB/s", "member0 share", "member1 share"))
for policy, bw, sh in res:
    print("   %-10s %10.1f %13.1f%% %13.1f%%" % (policy, bw / 1e6, 100 * sh[0], 100 * sh[1]))
print("   md-rr / md-legacy: %.2fx" % (res[1][1] / res[0][1]))
PY
  fi
}

# The tests that run threads against the engine: what TSan is for, and the
# programs they need (the TSan tree builds only these). TSAN_SKIP leaves out
# single-threaded cases that take minutes under TSan and find nothing there
# (they run in the release and ASan trees).
TSAN_TESTS="raid:|raid5:|raid6:.*(concurren|two added|two-member)|io:|telemetry:|balance:|session:|workload:.*(array|verify|runner|time_based|zbd|posixaio)|cli: test_(live_session|interrupt|bench|signals|member_failure|fio_status_interval)|soak:"
TSAN_SKIP="raid5:raid5 round trip, each member failed in turn"
TSAN_TARGETS=(test_raid test_raid5 test_raid6 test_io test_telemetry test_balance test_session test_workload raidscope-cli rs_kill_writer rs_sb_edit rs_powercut_trials)

install_missing
case "$MODE" in
  test)
    # Everything, then the engine and CLI again under ASan+UBSan, then the
    # threaded parts under TSan. Any failure fails the command.
    build build release "${RELEASE_OPTS[@]}" -DRAIDSCOPE_WERROR=ON
    build build-asan asan+ubsan "${SANITIZER_OPTS[@]}" -DRAIDSCOPE_SANITIZE=address,undefined
    build build-tsan tsan --targets="${TSAN_TARGETS[*]}" "${SANITIZER_OPTS[@]}" -DRAIDSCOPE_SANITIZE=thread
    status=0
    echo "== tests"
    (cd build && ctest --output-on-failure --timeout 900 -j2) || status=1
    echo "== tests under ASan+UBSan"
    (cd build-asan && ctest --output-on-failure --timeout 900 -j2) || status=1
    echo "== threaded tests under TSan"
    (cd build-tsan && ctest --output-on-failure --timeout 900 -j2 -R "$TSAN_TESTS" -E "$TSAN_SKIP") || status=1
    exit $status
    ;;
  sanitize)
    build build-asan asan+ubsan "${SANITIZER_OPTS[@]}" -DRAIDSCOPE_SANITIZE=address,undefined
    (cd build-asan && ctest --output-on-failure -j2)
    build build-tsan tsan --targets="${TSAN_TARGETS[*]}" "${SANITIZER_OPTS[@]}" -DRAIDSCOPE_SANITIZE=thread
    (cd build-tsan && ctest --output-on-failure -j2 -R "$TSAN_TESTS" -E "$TSAN_SKIP")
    ;;
  run)
    build build release "${RELEASE_OPTS[@]}"
    ensure_demo
    if [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} ]]; then
      RAIDSCOPE_DEMO_DIR="$DEMO" exec "$ROOT/build/app/gui/raidscope" --demo
    else
      demo_headless
    fi
    ;;
  *)
    echo "usage: ./run.sh [test|sanitize]" >&2
    exit 2
    ;;
esac
