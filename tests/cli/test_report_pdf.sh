#!/usr/bin/env bash
# report --format=pdf: made with Qt without a display; a PDF whose text
# (pdftotext, poppler-utils) holds both runs' figures and their ratio, and
# whose pages render (pdftoppm).
source "$(dirname "$0")/lib.sh"
for tool in pdftotext pdftoppm pdfinfo; do
  command -v $tool >/dev/null || { echo "SKIP: $tool (poppler-utils) is not installed"; exit 77; }
done

expect_status 0 "bench a" -- "$CLI" bench --filename=null --name=randread --rw=randread --bs=4k --size=16M --save=a.json
expect_status 0 "bench b" -- "$CLI" bench --filename=null --name=randread --rw=randread --bs=64k --size=64M --save=b.json

# No display at all, and a platform that would need one: the CLI must not care.
nodisplay() { env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=xcb "$@"; }
set +e
nodisplay "$CLI" report --format=pdf --output=probe.pdf a.json 2>probe.err
rc=$?
set -e
if [[ $rc != 0 ]] && grep -q "built without Qt" probe.err; then echo "SKIP: this build writes no PDF"; exit 77; fi
[[ $rc == 0 ]] || { cat probe.err >&2; fail "pdf of one result without a display: exit $rc"; }

expect_status 0 "pdf of one result" -- nodisplay "$CLI" report --format=pdf --output=one.pdf a.json
expect_status 0 "pdf of two results" -- nodisplay "$CLI" report --format=pdf --output=two.pdf a.json b.json
[[ $(head -c 4 one.pdf) == "%PDF" && $(head -c 4 two.pdf) == "%PDF" ]] || fail "the output does not start with %PDF"
[[ ! -s last.err ]] || { cat last.err >&2; fail "the PDF render printed to stderr"; }
pdftotext -layout one.pdf one.txt
pdftotext -layout two.pdf two.txt
python3 - a.json b.json one.txt two.txt <<'PY' || fail "pdf text"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
one, two = (open(p, encoding="utf-8").read() for p in sys.argv[3:5])
def mb_text(bw):
    return "%.2f GB/s" % (bw / 1e9) if bw >= 1e9 else "%.1f MB/s" % (bw / 1e6)
bw_a, bw_b = (d["fio"]["jobs"][0]["read"]["bw_bytes"] for d in (a, b))
assert mb_text(bw_a) in one, mb_text(bw_a)
for t in (mb_text(bw_a), mb_text(bw_b), "x%.2f" % (bw_b / bw_a), "RaidScope comparison of 2 runs", "a.json", "b.json",
          a["host"]["kernel"]):
    assert t in two, t
PY
pages=$(pdfinfo two.pdf | awk '/^Pages:/ {print $2}')
((pages >= 2)) || fail "two.pdf has $pages page(s); the report of two runs takes more"
pdftoppm -r 40 -png two.pdf page
for png in page-*.png; do
  [[ $(stat -c %s "$png") -gt 2000 ]] || fail "$png is (nearly) empty"
done
pass "pdf: %PDF, no display needed, both runs' figures and ratio in its text, $pages pages render"

echo "old" > keep.pdf
echo '{"format": "raidscope-result", "format_version": 1, "kind": "bench"}' > nojobs.json
expect_status 2 "pdf over a result without jobs" -- "$CLI" report --format=pdf --output=keep.pdf a.json nojobs.json
expect_error_mentions "nojobs.json"
[[ $(cat keep.pdf) == old ]] || fail "a refused pdf report changed keep.pdf"
pass "pdf: a broken result refused naming it, the output untouched"
