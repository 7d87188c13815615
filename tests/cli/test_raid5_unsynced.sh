#!/usr/bin/env bash
# RAID5 stripes that were never made to agree, and a member lost (issue 25,
# item 1), as a user meets them: members that held data before, an initial
# resync stopped part way, a write past the resync point, the member that
# holds it failed. md reconstruct-writes such a stripe (so its data survives
# the member), keeps the resync point when a member fails, and does not start
# a "dirty degraded" RAID5 unless told to, saying what that risks.
source "$(dirname "$0")/lib.sh"
SB_EDIT=${RS_SB_EDIT:?RS_SB_EDIT must point at rs_sb_edit}
DATA_OFFSET=$((1 << 20))  # create puts the data 1 MiB into each member
CHUNK=$((64 << 10))
N=5
m=(u0.img u1.img u2.img u3.img u4.img)

# An initial resync that got 2 stripes far: beyond them the members still hold
# what they held before (random bytes here), and the superblocks record the
# point, as a clean stop in the middle of the resync leaves them.
"$CLI" create --level=5 --raid-devices=$N --chunk=64K --create-files=24M "${m[@]}" >/dev/null
synced_rows=2
point=$((synced_rows * (N - 1) * CHUNK / 512))
for f in "${m[@]}"; do
  head -c $((24 * 1024 * 1024 - DATA_OFFSET - synced_rows * CHUNK)) /dev/urandom |
    dd of="$f" bs=64K seek=$(((DATA_OFFSET + synced_rows * CHUNK) / CHUNK)) conv=notrunc status=none
  "$SB_EDIT" "$f" resync_offset=$point
done
"$CLI" detail "${m[@]}" | grep -q "resync pending" || fail "detail does not show the interrupted resync"

# A 4 KiB write near the end of the array, far past the resync point.
size=$("$CLI" detail --json "${m[@]}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["size_bytes"])')
off=$((size - 3 * CHUNK + 8192))
head -c 4096 /dev/urandom >blk
"$CLI" write --offset=$off "${m[@]}" <blk 2>/dev/null
"$CLI" read --offset=$off --length=4096 "${m[@]}" | cmp -s - blk || fail "the write does not read back"
# Which member holds it (md's left-symmetric rule): parity on N-1-(stripe % N),
# the data chunks after it.
c=$((off / CHUNK))
stripe=$((c / (N - 1)))
pd=$((N - 1 - stripe % N))
holder=$(((pd + 1 + c % (N - 1)) % N))
pass "a write past the resync point reads back (member $holder holds it)"

"$CLI" fail --member="${m[$holder]}" "${m[@]}" >fail.out 2>&1 || { cat fail.out >&2; fail "fail"; }
rest=()
for i in "${!m[@]}"; do ((i != holder)) && rest+=("${m[$i]}"); done
# The resync point survives the failure: the array is not recorded in sync.
"$CLI" detail "${rest[@]}" >detail.out || { cat detail.out >&2; fail "detail of the degraded array"; }
grep -q "resync pending" detail.out || fail "the member's failure marked the unfinished resync done: $(grep State detail.out)"
for f in "${rest[@]}"; do
  "$CLI" examine "$f" | grep -Eq "^ +State : active" || fail "$f: its superblock says clean (mdadm's State: clean)"
done
pass "failing a member keeps the resync point (the array is dirty and degraded)"

# Reading it degraded: refused without the explicit force, naming the risk;
# with it, the block comes back from parity.
expect_status 1 "read of a dirty degraded raid5" -- "$CLI" read --offset=$off --length=4096 "${rest[@]}"
expect_error_mentions "dirty"
expect_error_mentions "--force-dirty-degraded"
expect_error_mentions "wrong"
"$CLI" read --force-dirty-degraded --offset=$off --length=4096 "${rest[@]}" >got 2>/dev/null ||
  fail "read with --force-dirty-degraded failed"
cmp -s got blk || fail "the degraded read returns other bytes than were written"
pass "a dirty degraded read is refused unless forced; forced, it returns the written data"

# A RAID5 stopped uncleanly, started with a member missing: refused, nothing
# written; forced, it runs.
c5=(c0.img c1.img c2.img c3.img c4.img)
"$CLI" create --level=5 --raid-devices=$N --chunk=64K --create-files=12M "${c5[@]}" >/dev/null
head -c 300000 /dev/urandom >d1
"$CLI" write "${c5[@]}" <d1 2>/dev/null
for f in "${c5[@]}"; do "$SB_EDIT" "$f" resync_offset=0; done
before=$(checksum_files "${c5[@]}")
echo new | { expect_status 1 "write --run on a dirty degraded raid5" -- "$CLI" write --run --offset=4096 "${c5[@]:0:4}"; }
expect_error_mentions "dirty"
expect_error_mentions "--force-dirty-degraded"
[[ $(checksum_files "${c5[@]}") == "$before" ]] || fail "the refused write changed a member"
"$CLI" detail "${c5[@]:0:4}" >/dev/null || fail "detail must still describe a dirty degraded array"
echo new | "$CLI" write --run --force-dirty-degraded --offset=409600 "${c5[@]:0:4}" 2>/dev/null ||
  fail "write with --force-dirty-degraded failed"
"$CLI" read --force-dirty-degraded --offset=0 --length=300000 "${c5[@]:0:4}" | cmp -s - d1 ||
  fail "data written before the stop does not read back"
pass "an uncleanly stopped raid5 does not start degraded unless forced; nothing written when refused"
# The load generator starts it only on the same explicit word.
arr=$(IFS=,; echo "${c5[*]:0:4}")
before=$(checksum_files "${c5[@]}")
expect_status 1 "bench on a dirty degraded raid5" -- "$CLI" bench --array="$arr" --run --name=r --rw=read --bs=4k --size=256k
expect_error_mentions "--force-dirty-degraded"
[[ $(checksum_files "${c5[@]}") == "$before" ]] || fail "the refused bench changed a member"
"$CLI" bench --array="$arr" --run --force-dirty-degraded --name=r --rw=read --bs=4k --size=256k >bench.out 2>&1 ||
  { cat bench.out >&2; fail "bench with --force-dirty-degraded failed"; }
grep -q "READ:" bench.out || fail "the forced bench printed no read summary: $(cat bench.out)"
pass "bench starts a dirty degraded raid5 only with --force-dirty-degraded"
"$CLI" --help | grep -q -- "--force-dirty-degraded" || fail "the usage does not document --force-dirty-degraded"
pass "usage documents --force-dirty-degraded"
