#!/usr/bin/env bash
# fallocate= with every value fio 3.33 accepts (issue 28, #4): none, posix,
# keep, native, truncate, 0 (none) and 1 (posix). How a write-only job's
# new file is laid out shows in its size and allocated blocks after one
# 4 KiB write into a 1 MiB region; both are compared with fio's on the
# same options. A job that reads gets its file written whatever the value.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || { echo "fio is not installed: skipped"; exit 77; }
CLI=$(realpath "$CLI")
# The filesystem must allocate as ext4 does (blocks on fallocate).
probe=$(mktemp -p "$WORK") && fallocate -l 1M "$probe" 2>/dev/null ||
  { echo "no fallocate on this filesystem: skipped"; exit 77; }

# shape TOOL...: "size allocated" of fa after the run; allocated is
# "full" when the whole MiB has blocks, else the KiB allocated.
shape() {
  rm -f fa
  "$@" --name=j --filename=fa --size=1m --bs=4k --io_size=4k >out 2>err || fail "$* failed: $(cat err)"
  local size blocks
  read -r size blocks < <(stat -c '%s %b' fa)
  ((blocks >= 2048)) && echo "$size full" || echo "$size $((blocks / 2))K"
}
for v in none posix keep native truncate 0 1; do
  for rw in write read; do
    f=$(shape fio --rw=$rw --fallocate=$v) r=$(shape "$CLI" bench --rw=$rw --fallocate=$v)
    [[ $r == "$f" ]] || fail "fallocate=$v rw=$rw: bench left fa as '$r', fio '$f'"
    [[ $rw == write ]] && w=$r
  done
  pass "fallocate=$v: write-only job's file '$w', read job's '$r', as fio"
done
expect_status 2 "fallocate=bogus" -- "$CLI" bench --name=j --filename=fa --size=1m --fallocate=bogus
expect_error_mentions "fallocate"
pass "an unknown fallocate value is refused naming the option"
