#!/usr/bin/env bash
# buffer_pattern= (issue 28; fio's t0028): every write buffer holds the
# pattern repeated from its first byte, in fio's pattern syntax ("text",
# 0xHEX, decimals least significant byte first, 'file'). Expected bytes are
# computed here from fio's rules, and the file is compared with fio 3.33's
# when fio is installed.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# expect FILE BS HEXBYTES: FILE is HEXBYTES repeated from each BS block's start.
expect() {
  python3 - "$@" <<'PY' || fail "$1 does not hold the pattern $3 per $2-byte block"
import sys
data, bs, pat = open(sys.argv[1], "rb").read(), int(sys.argv[2]), bytes.fromhex(sys.argv[3])
block = (pat * (bs // len(pat) + 1))[:bs]
assert len(data) % bs == 0 and len(data) > 0, len(data)
for at in range(0, len(data), bs):
    if data[at:at + bs] != block:
        sys.exit(f"block at {at}: {data[at:at + 16].hex()} ...")
PY
}
# t0028's pattern: "abcd", then -12 (f4 ff ff ff: fio's look-ahead stops the
# decimal at the "0x"), then de ad fa ce.
"$CLI" bench --name=p --filename=p.dat --rw=write --bs=4k --size=16k \
  '--buffer_pattern="abcd"-120xdeadface' >out 2>err || fail "bench failed: $(cat err)"
[[ ! -s err ]] || fail "stderr not empty: $(cat err)"
expect p.dat 4096 61626364f4ffffffdeadface
pass "\"abcd\"-120xdeadface is 61 62 63 64 f4 ff ff ff de ad fa ce, from each block's start"

# Hex runs split at a following 0x; an odd digit count; decimal 0; a file.
printf 'XY' >pat.bin
"$CLI" bench --name=p --filename=q.dat --rw=write --bs=512 --size=4k \
  "--buffer_pattern=0xff0x140xabc\"-\"0'pat.bin'" >out 2>err || fail "bench failed: $(cat err)"
expect q.dat 512 ff140abc2d005859
pass "0xff0x140xabc\"-\"0'pat.bin' is ff 14 0a bc 2d 00 58 59"

# A mixed job's reads land in the buffers: the writes still carry the pattern.
"$CLI" bench --name=p --filename=m.dat --rw=randrw --bs=4k --size=64k --norandommap=1 \
  --buffer_pattern=0x0102030405 >out 2>err || fail "bench failed: $(cat err)"
python3 - <<'PY' || fail "a randrw job wrote blocks without the pattern"
data = open("m.dat", "rb").read()
pat = (bytes.fromhex("0102030405") * 900)[:4096]
blocks = [data[i:i + 4096] for i in range(0, len(data), 4096)]
assert any(b == pat for b in blocks), "no block holds the pattern"
PY
pass "randrw: written blocks hold the pattern"

expect_status 2 "a bad pattern" -- "$CLI" bench --name=p --filename=x.dat --rw=write --size=4k '--buffer_pattern="abc'
expect_error_mentions "buffer_pattern"
expect_status 2 "%o in buffer_pattern" -- "$CLI" bench --name=p --filename=x.dat --rw=write --size=4k --buffer_pattern=%o
expect_error_mentions "%o"
pass "bad patterns refused, naming the option"

if command -v fio >/dev/null; then
  fio --name=p --filename=f.dat --rw=write --bs=4k --size=16k '--buffer_pattern="abcd"-120xdeadface' >/dev/null 2>&1 ||
    fail "fio failed"
  cmp f.dat p.dat || fail "bench's file differs from fio 3.33's"
  fio --name=p --filename=g.dat --rw=write --bs=512 --size=4k "--buffer_pattern=0xff0x140xabc\"-\"0'pat.bin'" \
    >/dev/null 2>&1 || fail "fio failed"
  cmp g.dat q.dat || fail "bench's file differs from fio 3.33's (hex runs, decimal 0, a file)"
  pass "both files are byte for byte fio 3.33's"
fi
