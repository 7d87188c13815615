#!/usr/bin/env bash
# fio's --inflate-log=FILE: a log kept with log_store_compressed=1 (NAME.fz,
# zlib chunks) printed back as its text, and nothing run. It is one of the
# command's own options (--inflate-log=FILE, as every other).
source "$(dirname "$0")/lib.sh"
CLI=$(realpath "$CLI")

"$CLI" bench --name=x --ioengine=null --size=64k --bs=4k --rw=write --write_bw_log=x --log_store_compressed=1 \
  >/dev/null 2>err || fail "a job with log_store_compressed=1: $(cat err)"
[[ -s x_bw.1.log.fz && ! -e x_bw.1.log ]] || fail "log_store_compressed=1 left: $(ls)"
"$CLI" bench --inflate-log=x_bw.1.log.fz >text 2>err || fail "--inflate-log=x_bw.1.log.fz: $(cat err)"
[[ ! -s err ]] || fail "--inflate-log printed on stderr: $(cat err)"
# A per-I/O bandwidth log of 16 writes of 4 KiB: "time, value, 1, 4096, 0" each.
[[ $(wc -l <text) == 16 ]] || fail "--inflate-log: $(wc -l <text) lines, expected 16 (one per write)"
[[ $(awk -F', ' '$3 == 1 && $4 == 4096' text | wc -l) == 16 ]] || fail "--inflate-log lines: $(head -3 text)"
pass "--inflate-log=NAME.fz prints the compressed log's 16 lines"

expect_status 2 "--inflate-log=" -- "$CLI" bench --inflate-log=
expect_error_mentions "needs a file"
expect_status 2 "--inflate-log FILE" -- "$CLI" bench --inflate-log x_bw.1.log.fz
expect_error_mentions "--inflate-log="
expect_status 1 "--inflate-log=missing.fz" -- "$CLI" bench --inflate-log=missing.fz
expect_error_mentions "missing.fz"
pass "--inflate-log without a file, in the spaced form, or of a missing file is refused with its reason"
