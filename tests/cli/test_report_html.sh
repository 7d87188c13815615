#!/usr/bin/env bash
# report --format=html: one self-contained page that parses, with SVG charts
# and the figures of both runs and their ratio (computed here from the saved
# documents, not by the code under test).
source "$(dirname "$0")/lib.sh"

truncate -s 64M m0.img m1.img
expect_status 0 "create" -- "$CLI" create --level=1 --raid-devices=2 m0.img m1.img
# Before: md-legacy switched to btrfs-rr half way (a tunable change to mark);
# after: btrfs-qlen. Emulated SSDs so the runs take their time.
expect_status 0 "bench before" -- "$CLI" bench --array=m0.img,m1.img --name=randread --rw=randread --bs=64k \
  --size=32M --runtime=1500ms --time_based --iodepth=4 --policy=md-legacy --set-at=0.7:read_policy=btrfs-rr \
  --member-profile=ssd-sata --telemetry-ms=100 --save=before.json
expect_status 0 "bench after" -- "$CLI" bench --array=m0.img,m1.img --name=randread --rw=randread --bs=64k \
  --size=32M --runtime=1500ms --time_based --iodepth=4 --policy=btrfs-qlen --member-profile=ssd-sata --save=after.json

expect_status 0 "report html of one result" -- "$CLI" report --format=html --output=one.html before.json
expect_status 0 "report html of two" -- "$CLI" report --format=html --output=two.html before.json after.json

python3 - before.json after.json one.html two.html <<'PY' || fail "html report"
import json, re, sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

before, after = (json.load(open(p)) for p in sys.argv[1:3])

class Checker(HTMLParser):
    """Every element we open is closed in order (void elements aside)."""
    VOID = {"meta", "br", "img", "hr", "input", "link", "rect", "line", "polyline"}
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.svgs = [], [], 0
    def handle_starttag(self, tag, attrs):
        if tag == "svg": self.svgs += 1
        if tag not in self.VOID: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if tag in self.VOID: return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()

def check_page(path, want_svgs):
    text = open(path, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>"), path
    c = Checker(); c.feed(text); c.close()
    assert not c.errors and not c.stack, (path, c.errors[:3], c.stack)
    assert c.svgs >= want_svgs, (path, c.svgs)
    # Self-contained: no scripts, no fetched assets.
    for bad in ("<script", " src=", "url(", "<link", "@import"):
        assert bad not in text, (path, bad)
    assert not re.search(r'href="(?!#)', text), path
    # Every chart is well-formed XML with labelled axes (a title and text).
    for svg in re.findall(r"<svg.*?</svg>", text, re.S):
        root = ET.fromstring(svg)
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert len(texts) >= 4, texts
    return text

one = check_page(sys.argv[3], 4)
two = check_page(sys.argv[4], 5)

def mbs(doc):
    return doc["fio"]["jobs"][0]["read"]["bw_bytes"]
def mb_text(b):
    return "%.2f GB/s" % (b / 1e9) if b >= 1e9 else "%.1f MB/s" % (b / 1e6)

for doc in (before, after):
    assert mb_text(mbs(doc)) in two, mb_text(mbs(doc))
assert mb_text(mbs(before)) in one
ratio = "x%.2f" % (mbs(after) / mbs(before))
assert ratio in two, ratio
assert ratio not in one or mbs(after) == mbs(before)
# The titles of the charts the issue asks for.
for title in ("Bandwidth per job", "IOPS per job", "Completion latency percentiles", "Read share per member",
              "Bandwidth over time", "Read share per member over time", "Pending I/Os per member over time"):
    assert title in two, title
# The tunable change is marked in the telemetry charts and listed.
assert "read_policy=btrfs-rr" in two
# Host facts and the array's members.
assert before["host"]["kernel"] in two and "m1.img" in two and "ssd-sata" in two
PY
pass "html: parses, self-contained, SVG charts, both runs' figures and their ratio, the tunable change marked"

# Refused input leaves nothing.
echo '[]' > list.json
expect_status 2 "html over a non-result" -- "$CLI" report --format=html --output=bad.html before.json list.json
expect_error_mentions "list.json"
[[ ! -e bad.html ]] || fail "a refused html report left bad.html"
pass "html: a non-result refused, nothing written"
