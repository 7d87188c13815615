#!/usr/bin/env bash
# verify_dump=1 and fio's verify_interval rules (issue 28; fio's t0003,
# t0004). A block that fails its payload check is written to
# <file>.<offset>.received, the block that was written there to
# <file>.<offset>.expected; a block whose header fails, to
# <file>.<offset>.hdr_fail (fio's dump_buf names, in the current
# directory), and fio's "... data dumped as NAME" lines go to stderr.
# verify_interval larger than the smallest write is cut to it, as fio's
# fixup_options does, instead of being refused.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# A payload failure: 4 bytes of the third 4 KiB block overwritten.
"$CLI" bench --name=w --filename=f --rw=write --size=64k --bs=4k --verify=md5 --do_verify=0 >/dev/null 2>err ||
  fail "write failed: $(cat err)"
cp f f.orig
printf 'XXXX' | dd of=f bs=1 seek=8300 conv=notrunc status=none
expect_status 1 "a read over a corrupted block" -- "$CLI" bench --name=r --filename=f --rw=read --size=64k --bs=4k \
  --verify=md5 --verify_dump=1
expect_error_mentions "received data dumped as f.8192.received"
expect_error_mentions "expected data dumped as f.8192.expected"
python3 - <<'PY' || fail "the dumped blocks are not the block read and the block written"
got, exp = open("f.8192.received", "rb").read(), open("f.8192.expected", "rb").read()
disk, orig = open("f", "rb").read(), open("f.orig", "rb").read()
assert got == disk[8192:12288], "received is not the block on disk"
assert exp == orig[8192:12288], "expected is not the block written"
diff = [i for i in range(4096) if got[i] != exp[i]]
assert diff and min(diff) >= 108 and max(diff) <= 111, diff
PY
[[ $(ls f.*.received f.*.expected | wc -l) == 2 ]] || fail "other blocks dumped: $(ls f.*)"
pass "payload failure: f.8192.received is the block read, f.8192.expected the block written (they differ in bytes 108-111 only)"

# A header failure: 8 KiB reads over 4 KiB verify blocks (fio's t0003: the
# header says 4096 bytes, the job's verify interval is 8192).
expect_status 1 "reads larger than the blocks written" -- "$CLI" bench --name=r --filename=f.orig --rw=read \
  --size=64k --bs=8k --verify=md5 --verify_dump=1 --verify_fatal=1
expect_error_mentions "hdr_fail data dumped as f.orig.0.hdr_fail"
python3 -c '
import sys
d = open("f.orig.0.hdr_fail", "rb").read()
sys.exit(d != open("f.orig", "rb").read()[:8192])' || fail "f.orig.0.hdr_fail is not the 8 KiB read at 0"
pass "header failure: f.orig.0.hdr_fail holds the 8 KiB read at offset 0"

# fio's t0004: verify_interval=1M with bs=512 is cut to 512; 512 with bs=1M
# gives 2048 blocks per write. Both read back whole, with other read sizes.
"$CLI" bench --name=a --filename=g --rw=write --size=1m --bs=512 --verify=md5 --verify_interval=1m \
  --verify_dump=1 >/dev/null 2>err || fail "verify_interval=1m with bs=512: $(cat err)"
"$CLI" bench --name=b --filename=g --rw=read --size=1m --bs=4k --verify=md5 --verify_interval=512 >/dev/null 2>err ||
  fail "4 KiB reads over 512-byte verify blocks: $(cat err)"
"$CLI" bench --name=c --filename=h --rw=write --size=4m --bs=1m --verify=md5 --verify_interval=512 >/dev/null 2>err ||
  fail "verify_interval=512 with bs=1m: $(cat err)"
"$CLI" bench --name=d --filename=h --rw=read --size=4m --bs=512 --verify=md5 >/dev/null 2>err ||
  fail "512-byte reads of 1 MiB writes with 512-byte verify blocks: $(cat err)"
pass "verify_interval is cut to the smallest write (1m with bs=512), and blocks verify at any read size"

# fio 3.33 names the same files for the same failure.
if command -v fio >/dev/null; then
  mkdir fio && cd fio
  fio --name=w --filename=f --rw=write --size=64k --bs=4k --verify=md5 --do_verify=0 >/dev/null 2>&1
  printf 'XXXX' | dd of=f bs=1 seek=8300 conv=notrunc status=none
  fio --name=r --filename=f --rw=read --size=64k --bs=4k --verify=md5 --verify_dump=1 >/dev/null 2>err || true
  [[ $(ls f.* | tr '\n' ' ') == "f.8192.expected f.8192.received " ]] || fail "fio dumped $(ls f.*)"
  grep -q "received data dumped as f.8192.received" err || fail "fio's line: $(cat err)"
  pass "fio 3.33 dumps the same two files and prints the same lines"
fi
