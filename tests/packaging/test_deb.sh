#!/usr/bin/env bash
# cpack -G DEB from the build tree: the package declares its Debian run-time
# dependencies (computed by dpkg-shlibdeps, plus the QML modules), lays the
# files out in the standard places, and its raidscope-cli runs once
# extracted with dpkg-deb -x.
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR}
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed (cmake, dpkg-dev)"; exit 77; }
done
grep -q '^RAIDSCOPE_GUI:BOOL=ON' "$BUILD/CMakeCache.txt" ||
  { echo "SKIP: the package is made from a build with the GUI (this one has RAIDSCOPE_GUI=OFF)"; exit 77; }
WORK=$(mktemp -d /tmp/raidscope-deb.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$WORK" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/out" >cpack.log 2>&1) ||
  { cat "$WORK/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$WORK"/out/raidscope_*.deb)
echo "ok: built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for want in 'libqt6core6' 'libqt6gui6' 'libqt6charts6|qml6-module-qtcharts' 'liburing[0-9]' 'libisal[0-9]' \
            'qml6-module-qtquick[ ,]' 'qml6-module-qtquick-controls' 'libc6'; do
  grep -Eq "$want" <<<"$depends" || fail "Depends lacks $want"
done
echo "ok: Depends has Qt 6 base, Qt Charts, liburing, ISA-L and the QML modules"

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for path in ./usr/bin/raidscope-cli ./usr/bin/raidscope \
            ./usr/share/applications/io.github.raidscope.RaidScope.desktop \
            ./usr/share/metainfo/io.github.raidscope.RaidScope.metainfo.xml \
            ./usr/share/icons/hicolor/scalable/apps/io.github.raidscope.RaidScope.svg \
            ./usr/share/man/man1/raidscope-cli.1.gz ./usr/share/raidscope/profiles/ ./usr/share/raidscope/scenarios/; do
  grep -qx -- "$path" <<<"$contents" || fail "the package lacks $path"
done
echo "ok: binaries, desktop file, metainfo, icon, man page and resources in the standard places"

dpkg-deb -x "$deb" "$WORK/root"
version=$("$WORK/root/usr/bin/raidscope-cli" --version)
[[ $version == "raidscope-cli "* ]] || fail "extracted raidscope-cli --version printed '$version'"
grep -q "$(dpkg-deb -f "$deb" Version)" <<<"$version" || fail "'$version' is not the package's version"
echo "ok: extracted raidscope-cli --version: $version"
# The packaged CLI finds the packaged scenarios (next to its bin/).
RAIDSCOPE_SOURCE_DIR=/nonexistent "$WORK/root/usr/bin/raidscope-cli" simulate --list | grep -q seed- ||
  fail "the extracted raidscope-cli does not list the packaged scenarios"
echo "ok: extracted raidscope-cli lists the packaged scenarios"
