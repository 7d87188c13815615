#!/usr/bin/env bash
# Every verb given bad arguments: unknown options, missing values, bad and
# out-of-range numbers, members that do not exist, are directories or empty
# files, the same storage twice. Each must end with exit status 1 or 2 and a
# message saying "error": never 0 (it did something with nonsense), never a
# signal (>= 128: it crashed), never a hang (60 s). The script runs every
# case and lists all that failed before it exits.
source "$(dirname "$0")/lib.sh"

"$CLI" create --level=1 --raid-devices=2 --create-files=16M a.img b.img >/dev/null
mkdir adir
: >empty.img
truncate -s 16M spare.img
head -c 4096 /dev/urandom >data4k
# Checksums of the array: no bad command may change it.
array_sum=$(checksum_files a.img b.img)

FAILED=()

# bad [-m TEXT] WHAT -- CMD ARGS...: runs the CLI with ARGS (stdin: 4 KiB of
# data), expects exit 1 or 2 and "error" (and TEXT, when given) on stderr.
bad() {
  local mention=""
  if [[ $1 == -m ]]; then
    mention=$2
    shift 2
  fi
  local what=$1
  shift 2
  set +e
  timeout 60 "$CLI" "$@" <data4k >"$WORK/bad.out" 2>"$WORK/bad.err"
  local rc=$?
  set -e
  local why=""
  if [[ $rc == 124 ]]; then
    why="did not finish in 60 s"
  elif ((rc >= 128)); then
    why="killed by signal $((rc - 128))"
  elif [[ $rc != 1 && $rc != 2 ]]; then
    why="exit $rc"
  elif ! grep -qi "error" "$WORK/bad.err"; then
    why="exit $rc but stderr does not say 'error'"
  elif [[ -n $mention ]] && ! grep -qi -- "$mention" "$WORK/bad.err"; then
    why="exit $rc but stderr does not mention '$mention'"
  fi
  if [[ -z $why ]]; then
    pass "$what (exit $rc)"
  else
    echo "FAIL: $what: $why: $(head -c 300 "$WORK/bad.err" | tr '\n' ' ')" >&2
    FAILED+=("$what: $why")
  fi
}

NO_SUCH=nosuch.img

# --- create -----------------------------------------------------------------
C=(create --level=1 --raid-devices=2)
bad "create: unknown option" -- "${C[@]}" --frobnicate --create-files=16M c1.img c2.img
bad "create: missing value" -- create --raid-devices=2 --create-files=16M c1.img c2.img --level
bad "create: bad number" -- create --level=1 --raid-devices=two --create-files=16M c1.img c2.img
bad "create: raid-devices out of range" -- create --level=1 --raid-devices=99999999999999999999 c1.img c2.img
bad "create: raid-devices negative" -- create --level=1 --raid-devices=-2 --create-files=16M c1.img c2.img
bad "create: bad level" -- create --level=7 --raid-devices=2 --create-files=16M c1.img c2.img
bad "create: bad chunk" -- create --level=10 --raid-devices=4 --chunk=3K --create-files=16M c{1,2,3,4}.img
bad "create: chunk 16E" -- create --level=10 --raid-devices=4 --chunk=16E --create-files=16M c{1,2,3,4}.img
bad "create: create-files 2^64+3" -- "${C[@]}" --create-files=18446744073709551619 c1.img c2.img
bad "create: create-files 0" -- "${C[@]}" --create-files=0 c1.img c2.img
# Each layout case gets its own file names: one wrongly accepted must not
# make the next fail for another reason.
R10=(create --level=10 --raid-devices=4 --create-files=16M)
bad -m layout "create: --layout=n99999999999" -- "${R10[@]}" --layout=n99999999999 l1-{1,2,3,4}.img
bad -m layout "create: --layout=2n" -- "${R10[@]}" --layout=2n l2-{1,2,3,4}.img
bad -m layout "create: --layout=n5 on 4 members" -- "${R10[@]}" --layout=n5 l3-{1,2,3,4}.img
bad -m layout "create: --layout=x2" -- "${R10[@]}" --layout=x2 l4-{1,2,3,4}.img
bad -m layout "create: --layout=near2 (not mdadm's spelling)" -- "${R10[@]}" --layout=near2 l5-{1,2,3,4}.img
bad "create: nonexistent member" -- "${C[@]}" $NO_SUCH spare.img
bad "create: directory member" -- "${C[@]}" --force adir spare.img
bad "create: empty file member" -- "${C[@]}" --force empty.img spare.img
bad "create: the same file twice" -- "${C[@]}" --force spare.img spare.img
bad "create: the same file under two names" -- "${C[@]}" --force spare.img ./adir/../spare.img
bad "create: no members" -- "${C[@]}"
rm -f c?.img l?-?.img

# --- examine ----------------------------------------------------------------
bad "examine: unknown option" -- examine --frobnicate a.img
bad "examine: nonexistent member" -- examine $NO_SUCH
bad "examine: directory" -- examine adir
bad "examine: empty file" -- examine empty.img
bad "examine: no member" -- examine

# --- detail, check, repair: the array is the members given -------------------
for verb in detail check repair; do
  bad "$verb: unknown option" -- $verb --frobnicate a.img b.img
  bad "$verb: flag given a value" -- $verb --json=yes a.img b.img
  bad "$verb: nonexistent member" -- $verb a.img $NO_SUCH
  bad "$verb: directory member" -- $verb a.img adir
  bad "$verb: empty file member" -- $verb a.img empty.img
  bad "$verb: no members" -- $verb
done

# --- write ------------------------------------------------------------------
bad "write: unknown option" -- write --frobnicate a.img b.img
bad "write: missing value" -- write a.img b.img --offset
bad "write: bad number" -- write --offset=abc a.img b.img
bad -m offset "write: offset 2^64+3 (wrapped to 3)" -- write --offset=18446744073709551619 a.img b.img
bad -m offset "write: offset 16E" -- write --offset=16E a.img b.img
bad "write: offset past the end" -- write --offset=1G a.img b.img
bad "write: nonexistent member" -- write a.img $NO_SUCH
bad "write: directory member" -- write a.img adir
bad "write: empty file member" -- write a.img empty.img

# --- read -------------------------------------------------------------------
bad "read: unknown option" -- read --frobnicate --offset=0 --length=1 a.img b.img
bad "read: missing value" -- read --offset=0 a.img b.img --length
bad "read: missing --length" -- read --offset=0 a.img b.img
bad "read: bad number" -- read --offset=0 --length=1x a.img b.img
bad -m offset "read: offset 2^64+3" -- read --offset=18446744073709551619 --length=1 a.img b.img
bad "read: offset 2^64-1 (past the end)" -- read --offset=18446744073709551615 --length=1 a.img b.img
bad "read: offset+length wrap" -- read --offset=18446744073709551615 --length=2 a.img b.img
bad -m length "read: length 17179869184G" -- read --offset=0 --length=17179869184G a.img b.img
bad "read: nonexistent member" -- read --offset=0 --length=1 a.img $NO_SUCH
bad "read: directory member" -- read --offset=0 --length=1 a.img adir
bad "read: empty file member" -- read --offset=0 --length=1 a.img empty.img

# --- fail -------------------------------------------------------------------
bad "fail: unknown option" -- fail --frobnicate --member=b.img a.img b.img
bad "fail: missing --member" -- fail a.img b.img
bad "fail: missing value" -- fail a.img b.img --member
bad "fail: member not in the array" -- fail --member=spare.img a.img b.img
bad "fail: nonexistent member" -- fail --member=$NO_SUCH a.img b.img
bad "fail: directory member" -- fail --member=b.img a.img adir
bad "fail: empty file member" -- fail --member=b.img a.img empty.img

# --- add --------------------------------------------------------------------
bad "add: unknown option" -- add --frobnicate --member=spare.img a.img b.img
bad "add: missing --member" -- add a.img b.img
bad "add: missing value" -- add a.img b.img --member
bad "add: nonexistent new member" -- add --member=$NO_SUCH a.img b.img
bad "add: directory as new member" -- add --member=adir a.img b.img
bad "add: empty file as new member" -- add --force --member=empty.img a.img b.img
bad "add: create-files 2^64+3" -- add --member=new.img --create-files=18446744073709551619 a.img b.img
ln b.img b-link.img
bad "add: a hard link to a member" -- add --force --member=b-link.img a.img b.img
rm -f b-link.img
bad "add: nonexistent array member" -- add --member=spare.img a.img $NO_SUCH

# --- bench ------------------------------------------------------------------
B=(bench --runtime=1 --time_based)
bad "bench: unknown option" -- "${B[@]}" --filename=null --frobnicate=1
bad "bench: missing value" -- "${B[@]}" --filename=null --rw
bad "bench: bad rw" -- "${B[@]}" --filename=null --rw=sideways
bad "bench: bad bs" -- "${B[@]}" --filename=null --rw=read --bs=abc
bad "bench: bs 0" -- "${B[@]}" --filename=null --rw=read --bs=0
bad "bench: iodepth out of range" -- "${B[@]}" --filename=null --rw=read --iodepth=99999999999999999999
bad "bench: negative iodepth" -- "${B[@]}" --filename=null --rw=read --iodepth=-1
bad "bench: bad runtime" -- bench --filename=null --rw=read --runtime=soon
bad "bench: size 16E" -- "${B[@]}" --filename=null --rw=read --size=16E
bad "bench: offset 2^64+3" -- "${B[@]}" --filename=null --rw=read --offset=18446744073709551619
bad "bench: --fail-member on the null target" -- bench --filename=null --fail-member=0@1 --rw=read --runtime=3 --time_based
bad "bench: --fail-member not a member" -- "${B[@]}" --array=a.img,b.img --rw=read --fail-member=9@0
bad "bench: --fail-member bad syntax" -- "${B[@]}" --array=a.img,b.img --rw=read --fail-member=one
bad "bench: unknown policy" -- "${B[@]}" --array=a.img,b.img --rw=read --policy=fastest
bad "bench: unknown member profile" -- "${B[@]}" --array=a.img,b.img --rw=read --member-profile=floppy
bad "bench: unknown output format" -- "${B[@]}" --filename=null --rw=read --output-format=xml
bad "bench: nonexistent job file" -- bench nosuch.fio
bad "bench: nonexistent array member" -- "${B[@]}" --array=a.img,$NO_SUCH --rw=read
bad "bench: directory array member" -- "${B[@]}" --array=a.img,adir --rw=read
bad "bench: empty file array member" -- "${B[@]}" --array=a.img,empty.img --rw=read
bad "bench: directory as filename" -- "${B[@]}" --filename=adir --rw=read
bad "bench: same member twice" -- "${B[@]}" --array=a.img,a.img --rw=read

# --- simulate ---------------------------------------------------------------
bad "simulate: unknown option" -- simulate --frobnicate
bad "simulate: missing value" -- simulate --scenario
bad "simulate: unknown scenario" -- simulate --scenario=no-such-seed
bad "simulate: nothing asked" -- simulate

# --- tunables ---------------------------------------------------------------
bad "tunables: unknown option" -- tunables --frobnicate
bad "tunables: unknown tunable" -- tunables no_such_tunable
bad "tunables: nonexistent member" -- tunables --array=a.img,$NO_SUCH

# --- sizes at the edge of 64 bits (parse only: read past the end is exit 1) --
size_ok() {
  set +e
  "$CLI" read --offset="$1" --length=1 a.img b.img >/dev/null 2>"$WORK/size.err"
  set -e
  if grep -qi "not a size\|too large" "$WORK/size.err"; then
    FAILED+=("--offset=$1 should parse: $(head -c 200 "$WORK/size.err")")
  else
    pass "--offset=$1 parses"
  fi
}
size_refused() {
  set +e
  "$CLI" read --offset="$1" --length=1 a.img b.img >/dev/null 2>"$WORK/size.err"
  local rc=$?
  set -e
  if [[ $rc == 2 ]] && grep -q -- "--offset=$1" "$WORK/size.err"; then
    pass "--offset=$1 refused"
  else
    FAILED+=("--offset=$1 should be refused with exit 2: exit $rc $(head -c 200 "$WORK/size.err")")
  fi
}
size_ok 18446744073709551615
size_ok 1E
size_ok 15E
size_ok 17179869183G
size_ok 4KiB
size_refused 18446744073709551616
size_refused 18446744073709551617
size_refused 18446744073709551618
size_refused 18446744073709551619
size_refused 184467440737095516150
size_refused 16E
size_refused 17179869184G
size_refused 16384P

[[ $(checksum_files a.img b.img) == "$array_sum" ]] || FAILED+=("a bad command changed the array a.img b.img")

if ((${#FAILED[@]})); then
  echo "${#FAILED[@]} case(s) failed:" >&2
  printf '  %s\n' "${FAILED[@]}" >&2
  exit 1
fi
pass "every bad argument refused"
