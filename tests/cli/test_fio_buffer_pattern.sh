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

# A job that reads refills the pattern before every write: fio's
# buffer_pattern (str_buffer_pattern_cb) turns refill_buffers on when the
# job reads, so that a read landing in a buffer is never written back out;
# refill_buffers, in fio's HOWTO: "refill the I/O buffers on every submit".
# The file starts as 0xee throughout (no layout: it has the job's size),
# and the job's one buffer (iodepth=1) takes reads of those bytes between
# its writes. From the I/O order (write_iolog) the expected file is
# computed here by hand: every block written holds the pattern, every
# other block 0xee; and, replaying the same order without refills (a write
# sends what the buffer last held), a different file, so this run can
# tell a refill from none.
python3 -c 'open("m.dat", "wb").write(b"\xee" * 65536)'
"$CLI" bench --name=p --filename=m.dat --rw=randrw --bs=4k --size=64k --norandommap=1 --ioengine=psync \
  --iodepth=1 --buffer_pattern=0x0102030405 --write_iolog=m.log >out 2>err || fail "bench failed: $(cat err)"
python3 - <<'PY' || fail "a randrw job did not refill the pattern before every write"
import sys
bs, pat, old = 4096, (bytes.fromhex("0102030405") * 900)[:4096], b"\xee" * 4096
ios = [(w[2], int(w[3]), int(w[4])) for w in (l.split() for l in open("m.log")) if len(w) == 5]
assert ios and all(n == bs and off % bs == 0 and off < 65536 for _, off, n in ios), ios
refilled, once = [old] * 16, [old] * 16  # the file's blocks: with refills, and with a buffer filled once
buf = pat
for op, off, _ in ios:
    if op == "read":
        buf = once[off // bs]  # the read lands in the job's one buffer
    elif op == "write":
        refilled[off // bs], once[off // bs] = pat, buf
writes = sum(op == "write" for op, _, _ in ios)
print(f"{len(ios)} I/Os, {writes} writes, {sum(b == pat for b in refilled)} blocks written")
if refilled == once:
    sys.exit("no write followed a read of other bytes than the pattern: the run cannot tell a refill")
data = open("m.dat", "rb").read()
assert len(data) == 65536, len(data)
for k in range(16):
    got = data[k * bs:(k + 1) * bs]
    if got != refilled[k]:
        sys.exit(f"block {k}: {got[:8].hex()}..., expected {refilled[k][:8].hex()}... "
                 f"({'written' if refilled[k] == pat else 'never written'})")
PY
pass "randrw: every write carries the pattern though reads filled the buffer between writes (refilled)"

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
  # The randrw run's I/O order replayed by fio on a file of 0xee: fio
  # refills too, so the files are the same.
  mkdir replay && python3 -c 'open("replay/m.dat", "wb").write(b"\xee" * 65536)'
  (cd replay && fio --name=p --rw=randrw --bs=4k --size=64k --ioengine=psync --iodepth=1 \
    --buffer_pattern=0x0102030405 --read_iolog=../m.log >/dev/null 2>&1) || fail "fio failed (read_iolog replay)"
  cmp replay/m.dat m.dat || fail "bench's randrw file differs from fio 3.33's replay of the same I/O order"
  pass "all three files are byte for byte fio 3.33's (the randrw one replayed in the same I/O order)"
fi
