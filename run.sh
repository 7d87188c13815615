#!/usr/bin/env bash
# RaidScope: one command to set up, build and run.
#   ./run.sh            install what is missing, build, run the main job:
#                       the GUI on a demo array when a display is there,
#                       a headless demo that prints what it did otherwise
#   ./run.sh test       install what is missing, build, run the whole test suite
#   ./run.sh sanitize   the engine tests under ASan+UBSan (and TSan) builds
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
MODE=${1:-run}

PACKAGES=(
  cmake ninja-build g++ pkg-config python3 e2fsprogs
  liburing-dev libisal-dev libblkid-dev libudev-dev nlohmann-json3-dev catch2
  qt6-base-dev qt6-declarative-dev qt6-charts-dev qt6-tools-dev
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts
  qml6-module-qtquick-templates qml6-module-qtquick-window qml6-module-qtqml
  qml6-module-qtqml-workerscript qml6-module-qtcharts qml6-module-qttest
  qml6-module-qtquick-dialogs
  fio mdadm xvfb xauth
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

build() {  # build DIR [cmake options...]
  local dir=$1; shift
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

DEMO=${RAIDSCOPE_DEMO_DIR:-$HOME/.local/share/raidscope/demo}
CLI=$ROOT/build/app/raidscope-cli

ensure_demo() {
  mkdir -p "$DEMO"
  if [[ ! -e $DEMO/member0.img ]]; then
    echo "== creating a RAID1 demo array of two image files in $DEMO"
    "$CLI" create --level=1 --raid-devices=2 --name=demo --create-files=256M "$DEMO"/member{0,1}.img
    # Written through once, so reads reach the disk (holes would read as zeros for free).
    "$CLI" bench --array="$DEMO/member0.img,$DEMO/member1.img" --name=fill --rw=write --bs=1M --iodepth=8 \
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
    echo "== 5 s sequential 1M read benchmark through the array, md-legacy then btrfs-rr"
    for p in md-legacy btrfs-rr; do
      "$cli" bench --array="${members[0]},${members[1]}" --policy=$p --name=seqread --rw=read --bs=1M \
        --iodepth=16 --runtime=5 --time_based --direct=1 | grep -E "read:|raidscope|share" || true
    done
  fi
}

install_missing
case "$MODE" in
  test)
    build build -DRAIDSCOPE_WERROR=ON
    cd build && ctest --output-on-failure --timeout 900 -j2
    ;;
  sanitize)
    build build-asan -DRAIDSCOPE_SANITIZE=address,undefined -DRAIDSCOPE_GUI=OFF
    (cd build-asan && ctest --output-on-failure -j2)
    build build-tsan -DRAIDSCOPE_SANITIZE=thread -DRAIDSCOPE_GUI=OFF
    (cd build-tsan && ctest --output-on-failure -j2 -R "raid|balance|workload")
    ;;
  run)
    build build
    ensure_demo
    if [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} ]]; then
      exec "$ROOT/build/app/gui/raidscope" "$DEMO"/member{0,1}.img
    else
      demo_headless
    fi
    ;;
  *)
    echo "usage: ./run.sh [test|sanitize]" >&2
    exit 2
    ;;
esac
