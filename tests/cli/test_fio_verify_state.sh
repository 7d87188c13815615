#!/usr/bin/env bash
# verify_state_save / verify_state_load (issue 28; fio's t0036, t0037). A
# write job with verify= leaves local-<job>-<index>-verify.state (fio's
# default verify_state_save=1) in fio 3.33's format: writes issued and each
# file's last iodepth write completions. A read job that loads it verifies
# what those writes covered and ends where they stopped completing, where
# without it the first block never written fails.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# fields FILE: the state file's header and list, as fio's verify-state.h
# lays them out, with its crc checked (fio_crc32c: CRC-32C, not inverted).
fields() {
  python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
ver, size, crc = struct.unpack_from("<QQQ", d, 0)
lst = d[24:]
c = 0xFFFFFFFF
for b in lst:
    c ^= b
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
assert size == len(lst), (size, len(lst))
assert crc == c, f"crc {crc:#x}, fio's crc32c of the list {c:#x}"
no, depth, nofiles, numberio, index = struct.unpack_from("<QIIQQ", lst, 0)
name = lst[32 + 56:32 + 56 + 64].rstrip(b"\0").decode()
comps = [struct.unpack_from("<QQ", lst, 152 + 16 * i) for i in range(no)]
assert size == 152 + 16 * depth * nofiles
print(ver, no, depth, nofiles, numberio, index, name, sorted(comps))
PY
}

"$CLI" bench --name=job --filename=t.dat --rw=write --size=512k --verify=md5 >/dev/null 2>err ||
  fail "write failed: $(cat err)"
[[ -f local-job-0-verify.state ]] || fail "no local-job-0-verify.state: $(ls)"
got=$(fields local-job-0-verify.state) || fail "state file: $got"
[[ $got == "3 1 1 1 128 0 job [(0, 520192)]" ]] || fail "state: $got"
pass "write job: local-job-0-verify.state: version 3, 128 writes, the last at 520192"
"$CLI" bench --name=job --filename=t.dat --rw=read --size=512k --verify=md5 --verify_state_load=1 \
  --output-format=json --output=o.json >/dev/null 2>err || fail "read with the state: $(cat err)"
python3 -c 'import json; j=json.load(open("o.json"))["jobs"][0]; assert j["read"]["io_kbytes"] == 512, j["read"]' ||
  fail "the loading read job did not read all 512 KiB"
pass "t0036: the read job loads it and verifies all 512 KiB"

# A write job cut short (number_ios=50): with the state, the read job
# verifies the 50 blocks written and ends at the 51st (fio's rule: within
# the last iodepth writes, only completed ones are read); without it, the
# 51st fails verification.
rm -f c.dat local-*.state
"$CLI" bench --name=cut --filename=c.dat --rw=write --size=512k --verify=md5 --number_ios=50 --do_verify=0 \
  >/dev/null 2>err || fail "short write: $(cat err)"
[[ $(fields local-cut-0-verify.state) == "3 1 1 1 50 0 cut [(0, 200704)]" ]] ||
  fail "state after 50 writes: $(fields local-cut-0-verify.state)"
expect_status 1 "a read without the state" -- "$CLI" bench --name=cut --filename=c.dat --rw=read --size=512k \
  --verify=md5 --verify_fatal=1
expect_error_mentions "offset 204800"
"$CLI" bench --name=cut --filename=c.dat --rw=read --size=512k --verify=md5 --verify_fatal=1 \
  --verify_state_load=1 --output-format=json --output=o.json >/dev/null 2>err || fail "with the state: $(cat err)"
python3 -c 'import json; j=json.load(open("o.json"))["jobs"][0]; assert j["read"]["io_kbytes"] == 200, j["read"]' ||
  fail "the read job with the state did not stop after the 50 blocks written"
pass "number_ios=50: with the state the read verifies 200 KiB and stops; without it, offset 204800 fails"

expect_status 1 "a missing state file" -- "$CLI" bench --name=none --filename=c.dat --rw=read --size=512k \
  --verify=md5 --verify_state_load=1
expect_error_mentions "local-none-0-verify.state"
printf 'garbage' >local-bad-0-verify.state
expect_status 1 "a corrupt state file" -- "$CLI" bench --name=bad --filename=c.dat --rw=read --size=512k \
  --verify=md5 --verify_state_load=1
expect_error_mentions "local-bad-0-verify.state"
pass "a missing or corrupt state file fails the job, naming the file"

# fio's t0037 shape: four files, iodepth 32, loops=4: every file's last 32
# writes (its whole region) are in the state; the read job reads it all.
rm -f local-*.state
files=t37.1:t37.2:t37.3:t37.4
"$CLI" bench --name=job --filename=$files --rw=write --size=512k --verify=md5 --ioengine=libaio --iodepth=32 \
  --loops=4 >/dev/null 2>err || fail "t0037 write: $(cat err)"
read -r ver no depth nofiles numberio rest <<<"$(fields local-job-0-verify.state)"
[[ "$no $depth $nofiles $numberio" == "128 32 4 512" ]] || fail "t0037 state: $no $depth $nofiles $numberio"
"$CLI" bench --name=job --filename=$files --rw=read --size=512k --verify=md5 --ioengine=libaio --iodepth=32 \
  --loops=4 --verify_state_load=1 --output-format=json --output=o.json >/dev/null 2>err ||
  fail "t0037 read: $(cat err)"
python3 -c 'import json; j=json.load(open("o.json"))["jobs"][0]; assert j["read"]["io_kbytes"] == 2048, j["read"]' ||
  fail "t0037: the read job did not read its 4 loops"
pass "t0037: 4 files at iodepth 32: 128 completions, 512 writes; the read job reads all 4 loops"

if command -v fio >/dev/null; then
  mkdir fio && cd fio
  fio --name=job --filename=t.dat --rw=write --size=512k --verify=md5 >/dev/null 2>&1 || fail "fio write"
  f=$(fields local-job-0-verify.state) || fail "fio's state file: $f"
  [[ $f == "3 1 1 1 128 0 job [(0, 520192)]" ]] || fail "fio's state: $f"
  pass "fio 3.33's state file for the same job has the same fields"
fi
