#!/usr/bin/env bash
# RAID1 of 2 and RAID10 (n2, f2, o2) of 4 image files: random data written
# reads back identical; with any one member failed it still does; after
# adding a fresh file and rebuilding, check finds no mismatch and failing a
# different member still reads back identical.
source "$(dirname "$0")/lib.sh"

roundtrip() {
  local label=$1 nmembers=$2; shift 2
  local create_args=("$@")
  local dir="$WORK/$label"
  mkdir -p "$dir" && cd "$dir"
  local members=()
  for ((i = 0; i < nmembers; i++)); do members+=("m$i.img"); done
  "$CLI" create "${create_args[@]}" --raid-devices="$nmembers" --create-files=48M "${members[@]}" >/dev/null
  head -c 7340032 /dev/urandom >data   # 7 MiB, spans many chunks
  "$CLI" write --offset=1234567 "${members[@]}" <data 2>/dev/null
  "$CLI" read --offset=1234567 --length=7340032 "${members[@]}" | cmp - data || fail "$label: read back differs"
  pass "$label: write/read identical"

  # Any one member failed (each on its own copy of the array).
  for ((f = 0; f < nmembers; f++)); do
    local copy="$dir/fail$f"
    mkdir -p "$copy"
    for m in "${members[@]}"; do cp --sparse=always "$m" "$copy/$m"; done
    (cd "$copy" && "$CLI" fail --member="m$f.img" "${members[@]}" >/dev/null &&
      "$CLI" read --offset=1234567 --length=7340032 "${members[@]}" 2>/dev/null | cmp - ../data) ||
      fail "$label: read back differs with member $f failed"
    rm -rf "$copy"
  done
  pass "$label: identical with any one member failed"

  # Fail member 0, rebuild onto a fresh file, check, fail another member.
  "$CLI" fail --member=m0.img "${members[@]}" >/dev/null
  truncate -s 48M fresh.img
  local rest=("${members[@]:1}")
  "$CLI" add --member=fresh.img "${rest[@]}" >add.out 2>add.err || { cat add.err >&2; fail "$label: add failed"; }
  grep -q "100%" add.err || fail "$label: add showed no progress"
  local now=(fresh.img "${rest[@]}")
  "$CLI" check "${now[@]}" >check.out 2>/dev/null
  grep -qx "mismatches: 0" check.out || { cat check.out >&2; fail "$label: check after rebuild"; }
  "$CLI" fail --member="${rest[0]}" "${now[@]}" >/dev/null
  "$CLI" read --offset=1234567 --length=7340032 "${now[@]}" 2>/dev/null | cmp - data ||
    fail "$label: read back differs after rebuild + another failure"
  pass "$label: rebuild, check = 0, fail another member, identical"
  cd "$WORK"
}

roundtrip raid1 2 --level=1
roundtrip raid10-n2 4 --level=10 --layout=n2
roundtrip raid10-f2 4 --level=10 --layout=f2 --chunk=64K
roundtrip raid10-o2 4 --level=10 --layout=o2 --chunk=128K
roundtrip raid10-n2-odd 3 --level=10 --layout=n2 --chunk=64K
