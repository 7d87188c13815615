#!/usr/bin/env bash
# verify=pattern (issue 28, #6): blocks of verify_pattern alone, no header,
# the pattern running on from the start of each write (fio's
# VERIFY_PATTERN_NO_HDR); a corrupted byte is reported in fio's words:
# "got pattern 'XX', wanted 'YY'. Bad bits N", "bad pattern block offset P"
# and "pattern: verify failed at file F offset O, length L", with fio's
# error 84 (EILSEQ). Checked against fio 3.33 when it is installed.
source "$(dirname "$0")/lib.sh"
CLI=$(realpath "$CLI")
cd "$WORK"

opts=(--filename=f --size=16k --bs=4k --verify=pattern --verify_pattern=0xdeadbeef)
"$CLI" bench --name=w --rw=write "${opts[@]}" --do_verify=0 >/dev/null 2>err || fail "write: $(cat err)"
python3 -c '
import sys
d = open("f", "rb").read()
sys.exit(0 if d == bytes.fromhex("deadbeef") * 4096 else 1)' || fail "the file is not 0xdeadbeef repeated"
"$CLI" bench --name=r --rw=read "${opts[@]}" >/dev/null 2>err || fail "an intact file failed its verify: $(cat err)"
pass "verify=pattern: the file is the pattern alone (16 KiB of de ad be ef), and reads back clean"

cp f f.orig
printf 'XY' | dd of=f bs=1 seek=8301 conv=notrunc status=none # 'X' over 0xad: 0x58 ^ 0xad has 6 bits set
expect_status 1 "a read over a corrupted byte" -- "$CLI" bench --name=r --rw=read "${opts[@]}" --output-format=json \
  --output=r.json
expect_error_mentions "got pattern '58', wanted 'ad'. Bad bits 6"
expect_error_mentions "bad pattern block offset 109"
expect_error_mentions "pattern: verify failed at file f offset 8192, length 4096"
grep -q '"error" : 84\|"error": 84' r.json || fail "the job's error is not 84 (EILSEQ) in the JSON: $(grep error r.json)"
pass "a corrupted byte: fio's words (got 58, wanted ad, 6 bad bits, block offset 109, file offset 8192), error 84"

if command -v fio >/dev/null; then
  cp f.orig g && printf 'XY' | dd of=g bs=1 seek=8301 conv=notrunc status=none
  set +e
  fio --name=r --rw=read --filename=g --size=16k --bs=4k --verify=pattern --verify_pattern=0xdeadbeef \
    >/dev/null 2>fio.err
  rc=$?
  set -e
  [[ $rc == 1 ]] || fail "fio exited $rc"
  for line in "got pattern '58', wanted 'ad'. Bad bits 6" "bad pattern block offset 109" \
    "pattern: verify failed at file g offset 8192"; do
    grep -qF "$line" fio.err || fail "fio 3.33 does not print '$line' here: $(cat fio.err)"
  done
  rm -f w2 && fio --name=w --rw=write --filename=w2 --size=16k --bs=4k --verify=pattern \
    --verify_pattern=0xdeadbeef --do_verify=0 >/dev/null 2>&1
  cmp -s w2 f.orig || fail "fio's file differs from bench's"
  pass "as fio 3.33: the same file written, the same lines for the same corruption"
fi
