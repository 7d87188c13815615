#!/usr/bin/env bash
# Files bench reads whole (a job file, read_iolog=, a 'file' in a pattern):
# one that cannot be read is refused with the system's reason, naming the
# file, and nothing runs. A directory in a file's place used to read as
# empty ("empty log", "no job section found") or threw out of the engine
# (a pattern file: "basic_filebuf::underflow").
source "$(dirname "$0")/lib.sh"
CLI=$(realpath "$CLI")
mkdir run && cd run  # the runs' own directory (lib.sh keeps last.out/last.err above it)
mkdir adir
job=(--name=x --ioengine=null --size=64k --bs=4k)

expect_status 2 "a job file that is a directory" -- "$CLI" bench adir
expect_error_mentions "adir: cannot read: Is a directory"
expect_status 2 "a missing job file" -- "$CLI" bench missing.fio
expect_error_mentions "missing.fio: cannot read: No such file or directory"
pass "a job file that cannot be read: refused with its reason"

expect_status 2 "read_iolog=DIR" -- "$CLI" bench "${job[@]}" --read_iolog=adir
expect_error_mentions "read_iolog=adir: adir: cannot read: Is a directory"
pass "read_iolog= naming a directory: refused with its reason"

expect_status 2 "buffer_pattern='DIR'" -- "$CLI" bench "${job[@]}" --rw=write "--buffer_pattern='adir'"
expect_error_mentions "pattern file adir: cannot read: Is a directory"
pass "a pattern's 'file' that is a directory: refused with its reason"
[[ $(ls) == adir ]] || fail "a refused run left files: $(ls)"
pass "nothing written"
