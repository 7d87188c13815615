#!/usr/bin/env bash
# simulate --scenario=FILE.json: a user's own scenario file runs like a
# shipped one; a missing or malformed file is refused with a message naming it.
source "$(dirname "$0")/lib.sh"
SRC=${RAIDSCOPE_SOURCE_DIR:?}

# The shipped btrfs-rr scenario, renamed and shortened, as the user's file.
python3 - "$SRC/resources/scenarios/seed-btrfs-rr.json" mine.json <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
sc["name"] = "my-own-scenario"
json.dump(sc, open(sys.argv[2], "w"))
PY
expect_status 0 "simulate a scenario file" -- "$CLI" simulate --scenario="$WORK/mine.json" --json
python3 - "$WORK/last.out" <<'PY' || fail "the file's scenario did not run as given"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["scenario"] == "my-own-scenario", d["scenario"]
rows = d["rows"]
assert len(rows) == 1
# seed 002: btrfs-rr spreads a dd read over both HDDs, btrfs-pid keeps one.
assert rows[0]["after"]["bw_bytes"] > 1.5 * rows[0]["before"]["bw_bytes"], rows[0]
PY
pass "a scenario file given by path runs (name and rows from the file)"

expect_status 2 "missing scenario file" -- "$CLI" simulate --scenario="$WORK/none.json"
expect_error_mentions "none.json"
echo '{"name": "broken", "rows": [' >broken.json
expect_status 2 "malformed scenario file" -- "$CLI" simulate --scenario=./broken.json
expect_error_mentions "broken.json"
pass "a missing or malformed scenario file is refused, naming the file"
