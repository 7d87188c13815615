#!/usr/bin/env bash
# verify with variable block sizes and with mixed reads and writes (issue
# 28; fio's t0002, t0006, t0008). As fio: a job that writes logs each write
# with its length and reads every one back; a mixed job checks only those
# reads, not its own reads of blocks it may never have written; the verify
# interval of a job with variable sizes is its smallest write, so a read
# job with other sizes checks the same blocks. Expected figures are fio's
# rules, and fio 3.33 is run on the same jobs when installed.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
CLI=$(realpath "$CLI")

# kib TOOL ARGS...: "read_KiB write_KiB error" of the JSON output.
kib() {
  "$@" --output-format=json --output=o.json >out 2>err || fail "$* failed: $(cat err)"
  [[ ! -s err ]] || fail "$*: stderr: $(cat err)"
  python3 -c '
import json
j = json.load(open("o.json"))["jobs"][0]
print(j["read"]["io_kbytes"], j["write"]["io_kbytes"], j["error"])'
}

# bssplit writes, read back whole by the verify pass: bytes read = written.
for t in "$CLI bench" fio; do
  command -v ${t%% *} >/dev/null || continue
  rm -f v.dat
  # shellcheck disable=SC2086
  read -r r w e <<<"$(kib $t --name=v --filename=v.dat --rw=randwrite --bssplit=512/50:64k/50 --size=4m \
    --verify=md5 --randrepeat=1)"
  [[ $e == 0 && $r == "$w" && $w -gt 0 ]] || fail "$t: bssplit verify read $r KiB of $w written, error $e"
  pass "$t: bssplit randwrite verified: read $r KiB = written $w KiB"
done

# A read job with other sizes checks the same 512-byte blocks; a byte
# corrupted in the file is reported in its 512-byte block.
"$CLI" bench --name=w --filename=s.dat --rw=write --bssplit=512/50:64k/50 --size=1m --verify=md5 \
  --do_verify=0 >/dev/null 2>err || fail "bssplit write: $(cat err)"
"$CLI" bench --name=r --filename=s.dat --rw=read --bssplit=4k/50:128k/50 --size=1m --verify=md5 \
  --verify_interval=512 >/dev/null 2>err || fail "a read job with other sizes: $(cat err)"
printf 'Z' | dd of=s.dat bs=1 seek=300000 conv=notrunc status=none
expect_status 1 "a corrupted byte" -- "$CLI" bench --name=r --filename=s.dat --rw=read --bssplit=4k/50:128k/50 \
  --size=1m --verify=md5 --verify_interval=512
expect_error_mentions "at offset 299520"  # 300000 rounded down to 512
pass "bssplit: other read sizes verify; a corrupted byte at 300000 is reported in the block at 299520"

# fio's t0008 rule: a sequential readwrite job with verify_backlog=1 reads
# its io_size (reads and writes share it) plus everything it wrote: 8 MiB.
for t in "$CLI bench" fio; do
  command -v ${t%% *} >/dev/null || continue
  rm -f m.dat
  # shellcheck disable=SC2086
  read -r r w e <<<"$(kib $t --name=m --filename=m.dat --rw=readwrite --bs=4k --size=8m --verify=crc32c \
    --verify_backlog=1 --direct=1)"
  [[ $e == 0 && $r == 8192 ]] || fail "$t: readwrite verify_backlog=1 read $r KiB (8192 expected), error $e"
  python3 -c "import sys; sys.exit(not 0.9 < $w / 4096 < 1.1)" || fail "$t: wrote $w KiB, not about 4096"
  pass "$t: readwrite verify_backlog=1: read $r KiB (its own reads + all it wrote), wrote $w KiB"
done

# fio's t0006 rule: randrw with verify_backlog reads about twice what it
# writes: its own reads (its io_size less its writes) plus every write read
# back, so 32 MiB in all. Its own reads of blocks never written are not
# checked (the file's blocks start random: checking them would fail).
read -r r w e <<<"$(kib "$CLI" bench --name=x --filename=x.dat --rw=randrw --bs=4k --size=32m --verify=meta \
  --verify_backlog=64 --verify_pattern=0xaaa --verify_fatal=1)"
[[ $e == 0 && $r == 32768 ]] || fail "randrw verify_backlog: read $r KiB (32768 expected), error $e"
python3 -c "import sys; sys.exit(not (1.9 < $r / $w < 2.1))" || fail "randrw backlog: read $r, wrote $w"
pass "randrw verify=meta verify_backlog=64: read $r KiB (own reads + all written), wrote $w KiB"

# A mixed job without a backlog: the verify pass reads back every write.
read -r r w e <<<"$(kib "$CLI" bench --name=y --filename=y.dat --rw=randrw --bs=4k --size=32m --verify=md5)"
[[ $e == 0 && $r == 32768 ]] || fail "randrw verify pass: read $r KiB (32768 expected), error $e"
pass "randrw verify pass: read $r KiB (own reads + all written), wrote $w KiB"
