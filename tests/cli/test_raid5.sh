#!/usr/bin/env bash
# RAID5 through raidscope-cli as a user types it: create in each of md's
# layouts, mdadm --examine reads the members (raid5, the layout's name,
# the chunk, checksum correct), write/read round trip, a member failed and
# read degraded, add rebuilds it, check finds nothing, repair after damage,
# and the bad usages exit 2 writing nothing.
source "$(dirname "$0")/lib.sh"
MDADM=$(command -v mdadm || true)
[[ -x ${MDADM:-/sbin/mdadm} ]] || MDADM=/sbin/mdadm

head -c 3000000 /dev/urandom >data

for layout in left-symmetric left-asymmetric right-symmetric right-asymmetric; do
  m=($layout-{0,1,2,3}.img)
  "$CLI" create --level=5 --raid-devices=4 --layout=$layout --chunk=128K --create-files=12M "${m[@]}" >/dev/null
  if [[ -x $MDADM ]]; then
    for i in 0 1 2 3; do
      out=$("$MDADM" --examine "${m[$i]}")
      grep -Eq "Raid Level : raid5$" <<<"$out" || fail "$layout: mdadm Raid Level"
      grep -Eq "Layout : $layout$" <<<"$out" || fail "$layout: mdadm Layout"
      grep -Eq "Chunk Size : 128K$" <<<"$out" || fail "$layout: mdadm Chunk Size"
      grep -Eq "Device Role : Active device $i$" <<<"$out" || fail "$layout: mdadm Device Role"
      grep -Eq "Checksum : [0-9a-f]+ - correct$" <<<"$out" || fail "$layout: mdadm checksum"
    done
    pass "$layout: mdadm --examine reads raid5, $layout, 128K, checksum correct"
  fi
  "$CLI" write --offset=5000 "${m[@]}" <data >/dev/null 2>&1
  "$CLI" read --offset=5000 --length=3000000 "${m[@]}" | cmp - data || fail "$layout: round trip"
  "$CLI" fail --member="${m[2]}" "${m[@]}" >/dev/null
  "$CLI" read --offset=5000 --length=3000000 "${m[@]}" 2>/dev/null | cmp - data || fail "$layout: degraded read"
  truncate -s 12M $layout-new.img
  "$CLI" add --member=$layout-new.img "${m[0]}" "${m[1]}" "${m[3]}" >/dev/null 2>&1
  m[2]=$layout-new.img
  [[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 0" ]] || fail "$layout: check after rebuild"
  "$CLI" read --offset=5000 --length=3000000 "${m[@]}" | cmp - data || fail "$layout: read after rebuild"
  pass "$layout: round trip, degraded read, rebuild, check"
done

"$CLI" detail left-symmetric-{0,1,3}.img left-symmetric-new.img >detail.txt
grep -q "Raid Level : raid5" detail.txt || fail "detail: level"
grep -q "Layout : left-symmetric" detail.txt || fail "detail: layout"
pass "detail describes raid5"

# Damage on a member (behind the array's back) found by check, fixed by repair.
m=(left-symmetric-{0,1}.img left-symmetric-new.img left-symmetric-3.img)
head -c 8192 /dev/urandom | dd of=${m[1]} bs=4096 seek=$((1024 * 1024 / 4096 + 5)) conv=notrunc status=none
[[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 16" ]] || fail "check after damage: $("$CLI" check "${m[@]}" 2>/dev/null)"
"$CLI" repair "${m[@]}" >/dev/null 2>&1
[[ $("$CLI" check "${m[@]}" 2>/dev/null) == "mismatches: 0" ]] || fail "check after repair"
pass "check counts 2 damaged pages as 16 sectors; repair fixes them"

# Tunables: md's names and limits, refused with the range.
"$CLI" tunables "${m[@]}" >tun.txt
for t in stripe_cache_size preread_bypass_threshold stripe_scheduling; do grep -q $t tun.txt || fail "tunables lacks $t"; done
pass "tunables lists stripe_cache_size, preread_bypass_threshold, stripe_scheduling"

expect_status 2 "unknown raid5 layout" -- "$CLI" create --level=5 --raid-devices=3 --layout=n2 --create-files=12M x0 x1 x2
expect_error_mentions "n2"
[[ ! -e x0 ]] || fail "a refused create wrote x0"
expect_status 2 "raid5 of 2" -- "$CLI" create --level=5 --raid-devices=2 --create-files=12M x0 x1
expect_status 2 "bad chunk" -- "$CLI" create --level=5 --raid-devices=3 --chunk=3K --create-files=12M x0 x1 x2
[[ ! -e x0 ]] || fail "a refused create wrote x0"
pass "bad usages exit 2 and write nothing"

# md's limits, refused before a run with the range named.
m=(left-symmetric-{0,1}.img left-symmetric-new.img left-symmetric-3.img)
expect_status 2 "stripe_cache_size 16" -- "$CLI" bench --array=$(IFS=,; echo "${m[*]}") --rw=write --bs=1M \
  --runtime=1 --set-at=0.5:stripe_cache_size=16
expect_error_mentions "17..32768"
expect_status 2 "threshold above the cache" -- "$CLI" bench --array=$(IFS=,; echo "${m[*]}") --rw=write --bs=1M \
  --runtime=1 --set-at=0.5:preread_bypass_threshold=257
expect_error_mentions "0..256"
pass "stripe_cache_size and preread_bypass_threshold refused out of md's ranges"

# Live: a tunable changed mid-run shows in the raid5 section of the telemetry stream,
# and the stripe cache's lists are sampled as they are.
expect_status 0 "bench with --set-at" -- "$CLI" bench --array=$(IFS=,; echo "${m[*]}") \
  --member-profile=virtio-100mbs --profile-scale=0.25 --ioengine=io_uring --name=w --rw=write --bs=1M --iodepth=8 \
  --runtime=5 --time_based --direct=1 \
  --size=8M --set-at=3:preread_bypass_threshold=0 --telemetry=t.jsonl --telemetry-ms=200
python3 - t.jsonl <<'PY'
import json, sys
samples = [json.loads(l) for l in open(sys.argv[1])]
r5 = [(s["t"], s["sections"]["raid5"]) for s in samples]
assert len(r5) >= 15, f"only {len(r5)} samples"
before = [v for t, v in r5 if t < 2.9]
after = [v for t, v in r5 if t > 3.1]
assert before and all(v["preread_bypass_threshold"] == 1 for v in before), before
assert after and all(v["preread_bypass_threshold"] == 0 for v in after), after
events = [e for s in samples for e in s.get("events", []) if e.get("tunable") == "preread_bypass_threshold"]
assert len(events) == 1 and events[0]["value"] == "0" and abs(events[0]["t"] - 3.0) <= 0.1, events
# The stripe section: md's lists, sampled live. Every head is active or on
# the inactive list (md's stripe_cache_active + inactive_list = stripe_cache_size).
for _, v in r5:
    assert v["active_stripes"] + v["inactive"] == v["stripe_cache_size"] == 256, v
    assert 0 <= v["handle"] + v["hold"] + v["delayed"] + v["handling"] <= v["active_stripes"], v
    assert 0 <= v["preread_active_stripes"] <= v["active_stripes"] and v["bypass_count"] >= 0, v
    assert 0 <= v["pending_full_writes"] <= v["handling"], v
busy = [v for t, v in r5 if 0.1 < t < 4.9]
assert max(v["active_stripes"] for v in busy) > 0 and max(v["pending_full_writes"] for v in busy) > 0, busy
# 1 MiB writes over 384 KiB stripe rows: the partial rows' heads wait on hold_list (priority) while full ones go.
assert max(v["hold"] for v in busy) > 0, busy
# 1 MiB writes over 384 KiB stripes (3 x 128K): whole stripes in the middle, partial ones (pre-reads) at the ends.
assert sum(v["prereads"] for _, v in r5) > 0 and sum(v["rcw_writes"] + v["rmw_writes"] for _, v in r5) > 0
assert sum(v["full_stripe_writes"] for _, v in r5) > 0
print(f"ok: raid5 section in {len(r5)} samples; threshold 1 -> 0 at {events[0]['t']:.2f} s")
PY
pass "preread_bypass_threshold changed at 3 s and the stripe lists show in the telemetry stream's raid5 section"

# Live: hold_stream_stripes switched off mid-run. A sequential 64 KiB writer
# at queue depth 16 on its own array (4 members, 64 KiB chunks: a stripe is
# three of its writes): held, its stripes are written whole and almost none
# is read back first (rcw); off (md's behaviour), the leading stripe is
# released with one or two chunks and read back. Measured here: about 300
# rcw heads against 280-300k whole ones with the hold, 110-130k against
# 165-170k without; asserted: the rcw share with the hold below a tenth of
# the share without.
"$CLI" create --level=5 --raid-devices=4 --chunk=64K --bitmap=none --create-files=64M s0 s1 s2 s3 >/dev/null
expect_status 0 "bench switching the hold off" -- "$CLI" bench --array=s0,s1,s2,s3 --ioengine=io_uring --name=w \
  --rw=write --bs=64k --iodepth=16 --runtime=4 --time_based --direct=1 \
  --set-at=2:hold_stream_stripes=off --telemetry=hold.jsonl --telemetry-ms=200
python3 - hold.jsonl <<'PY'
import json, sys
samples = [json.loads(l) for l in open(sys.argv[1])]
r5 = [(s["t"], s["sections"]["raid5"]) for s in samples]
on = [v for t, v in r5 if 0.1 < t < 1.9]
off = [v for t, v in r5 if t > 2.1]
assert on and all(v["hold_stream_stripes"] == 1 for v in on), on
assert off and all(v["hold_stream_stripes"] == 0 for v in off), off
def rcw_share(vs):
    rcw = sum(v["rcw_writes"] + v["rmw_writes"] for v in vs)
    whole = sum(v["full_stripe_writes"] for v in vs)
    assert rcw + whole > 0, vs
    return rcw / (rcw + whole)
held, released = rcw_share(on), rcw_share(off)
assert released > 0 and held < released / 10, (held, released)
print(f"ok: rcw share {held:.4f} held, {released:.4f} after switching the hold off")
PY
pass "hold_stream_stripes off mid-run: the sequential writer's stripes are read back again"
