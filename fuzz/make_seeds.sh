#!/usr/bin/env bash
# Regenerates the binary seeds in fuzz/corpus/ (the text seeds are copies of
# tests/fio-jobs/good and resources/profiles): md superblocks and bitmap
# superblocks of arrays raidscope-cli creates, and hostile superblocks
# derived from them, among them max_dev = 60000 (its role table would
# run 120 KiB past a 4 KiB read: mdadm 4.2 reads past its buffer there).
#   fuzz/make_seeds.sh path/to/raidscope-cli
set -euo pipefail
CLI=$(realpath "${1:?usage: $0 path/to/raidscope-cli}")
SRC=$(cd "$(dirname "$0")/.." && pwd)
C=$SRC/fuzz/corpus
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$C"/{fuzz_superblock,fuzz_bitmap,fuzz_fio_job,fuzz_device_profile}

# superblock at 4 KiB, bitmap superblock 8 sectors after it (RaidScope's layout)
make_array() {  # NAME CREATE-ARGS...
  local name=$1; shift
  (cd "$W" && "$CLI" create --create-files=64M "$@" >/dev/null)
  dd if="$W/m0.img" of="$C/fuzz_superblock/$name.bin" bs=4096 skip=1 count=1 status=none
  cp "$W/m0.img" "$W/$name.m0"
  rm -f "$W"/m*.img
}
make_array raid1 --level=1 --raid-devices=2 m0.img m1.img
make_array raid10-n2 --level=10 --raid-devices=4 --layout=n2 m0.img m1.img m2.img m3.img
make_array raid10-f2 --level=10 --raid-devices=3 --layout=f2 m0.img m1.img m2.img
make_array raid1-bitmap --level=1 --raid-devices=2 --bitmap=internal m0.img m1.img
dd if="$W/raid1-bitmap.m0" of="$C/fuzz_bitmap/bitmap-raid1.bin" bs=256 skip=32 count=1 status=none

python3 - "$C/fuzz_superblock" <<'PY'
import struct, sys, os
d = sys.argv[1]
base = bytearray(open(os.path.join(d, "raid1.bin"), "rb").read())
def csum(b, max_dev):  # md's sb_csum over 256 + 2*max_dev bytes, as far as the block goes
    b = bytes(b[:256 + 2 * max_dev]).ljust(256 + 2 * max_dev, b"\0")
    b = b[:216] + b"\0\0\0\0" + b[220:]
    s = sum(struct.unpack("<%dI" % (len(b) // 4), b[: len(b) // 4 * 4]))
    if len(b) % 4 == 2: s += struct.unpack("<H", b[-2:])[0]
    s = (s & 0xffffffff) + (s >> 32)
    return s & 0xffffffff
def variant(name, max_dev=None, fix_csum=True, **fields):
    b = bytearray(base)
    offsets = {"level": (72, "<i"), "raid_disks": (92, "<I"), "dev_number": (160, "<I"),
               "data_offset": (128, "<Q"), "data_size": (136, "<Q"), "feature_map": (8, "<I")}
    for k, v in fields.items():
        off, fmt = offsets[k]
        struct.pack_into(fmt, b, off, v)
    if max_dev is not None: struct.pack_into("<I", b, 220, max_dev)
    md = struct.unpack_from("<I", b, 220)[0]
    if fix_csum: struct.pack_into("<I", b, 216, csum(b, md))
    open(os.path.join(d, name + ".bin"), "wb").write(b)
variant("max-dev-60000", max_dev=60000)
variant("max-dev-60000-raw-csum", max_dev=60000, fix_csum=False)
variant("max-dev-1920", max_dev=1920)          # the kernel's bound: (4096 - 256) / 2
variant("max-dev-1921", max_dev=1921)
variant("raid-disks-past-max-dev", raid_disks=200)
variant("dev-number-past-max-dev", dev_number=5000)
variant("data-past-device", data_size=1 << 40)
variant("level-6", level=6)
variant("reshape-feature", feature_map=4)
open(os.path.join(d, "short-256.bin"), "wb").write(bytes(base[:256]))
open(os.path.join(d, "empty.bin"), "wb").write(b"")
PY

cp "$SRC"/tests/fio-jobs/good/*.fio "$C/fuzz_fio_job/"
for f in "$SRC"/tests/fio-jobs/bad/*.fio; do cp "$f" "$C/fuzz_fio_job/bad-$(basename "$f")"; done
cp "$SRC"/resources/profiles/*.json "$C/fuzz_device_profile/"
ls "$C"/* | wc -l
