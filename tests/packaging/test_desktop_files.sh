#!/usr/bin/env bash
# The desktop integration files pass the validators distributions run:
# appstreamcli (offline), desktop-file-validate; the icon is SVG; the man
# page formats without warnings.
set -euo pipefail
DIR=${1:?usage: $0 path/to/packaging}
ID=io.github.raidscope.RaidScope
for tool in appstreamcli desktop-file-validate groff; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed (appstream, desktop-file-utils, groff-base)"; exit 77; }
done
fail() { echo "FAIL: $*" >&2; exit 1; }

appstreamcli validate --no-net --pedantic "$DIR/$ID.metainfo.xml" || fail "appstreamcli validate"
echo "ok: appstreamcli validate --no-net"
out=$(desktop-file-validate "$DIR/$ID.desktop" 2>&1) || fail "desktop-file-validate: $out"
[[ -z $out ]] || fail "desktop-file-validate has remarks: $out"
echo "ok: desktop-file-validate"

# The metainfo names the desktop file and has a release and a screenshot.
python3 - "$DIR/$ID.metainfo.xml" "$DIR/$ID.svg" <<'PY' || fail "metainfo or icon"
import sys, xml.etree.ElementTree as ET
m = ET.parse(sys.argv[1]).getroot()
assert m.find("launchable").text == "io.github.raidscope.RaidScope.desktop"
assert m.find("releases/release").get("version")
assert m.findall("screenshots/screenshot/image")
svg = ET.parse(sys.argv[2]).getroot()
assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.get("viewBox"), svg.tag
PY
grep -q "^Icon=$ID$" "$DIR/$ID.desktop" || fail "the desktop file does not use the icon $ID"
echo "ok: metainfo launchable, release, screenshot; scalable SVG icon"

warnings=$(groff -man -ww -z -Tutf8 "$DIR/raidscope-cli.1" 2>&1)
[[ -z $warnings ]] || fail "man page warnings: $warnings"
echo "ok: raidscope-cli.1 formats without warnings"
