#include "usage.hpp"

#include <cstring>

namespace rs::cli {

const char* const kUsage = R"(usage: raidscope-cli COMMAND [OPTIONS] MEMBER...

Array commands (the array is the set of members given):
  create --level=1|10|5 --raid-devices=N [--layout=n2|f2|o2 | left-symmetric|left-asymmetric|
         right-symmetric|right-asymmetric] [--chunk=512K]
         [--name=NAME] [--force] [--create-files=SIZE]
         [--bitmap=internal|none] [--bitmap-chunk=SIZE] MEMBER...
  examine MEMBER                     print one member's md superblock
  detail [--json] MEMBER...          assemble and describe the array
  write [--offset=BYTES] [--run] MEMBER... < data
  read --offset=BYTES --length=BYTES MEMBER... > data
  fail --member=PATH MEMBER...       mark a member faulty
  add --member=PATH [--force] [--create-files=SIZE] MEMBER...
                                     add PATH and rebuild onto it (resumes)
  check MEMBER...                    compare copies, print mismatches
  repair MEMBER...                   compare and rewrite differing copies
  tunables [--json] [MEMBER...]      every tunable: range, unit, help (values)
  devices [--json] [--all] [--watch] block devices: size, rotational, io_opt,
                                     md membership, whether and why unsafe;
                                     --watch then prints hot-plug events

Commands that write refuse to start an array with members missing that
were active at its last update; --run starts it degraded anyway. They
refuse a member another engine holds (by any name: a second loop device
over its file, a partition of its disk, ...) and a member that cannot be
written (read-only device or mount, immutable file); and one whose
underlying storage cannot be identified or locked unless --force is given
(another engine on that storage would then not be excluded).
Ctrl-C (or SIGTERM, SIGHUP, SIGPIPE, SIGUSR1) stops add/check/repair/write/
bench cleanly: the array is closed and add resumes where it stopped.

Workloads:
  bench [JOBFILE] [--name=value ...] [--array=M1,M2,...] [--policy=NAME]
        [--member-profile=PROFILE|INDEX=PROFILE] [--output-format=normal|json]
        [--output=FILE] [--set-at=SECONDS:NAME=VALUE] [--telemetry=FILE.jsonl]
  simulate --scenario=NAME [--json] | --list
  (bench and simulate take --save=FILE.json: a result for `report`)

Reports:
  report --format=html|pdf|json|csv --output=FILE [--force] RESULT.json...

Exit status:
  0    done
  1    failed (the message says why)
  2    bad usage: nothing was done
  3    done, but a member failed while the command ran: the array is
       degraded (a line on stderr names the member and the error)
  4    check/repair: the array has no redundancy left, nothing was compared
  128+N  stopped by signal N (130: Ctrl-C); the array was closed cleanly

Run 'raidscope-cli COMMAND --help' for a command's options.
)";

namespace {

struct CommandUsage {
  const char* command;
  const char* text;
};

constexpr CommandUsage kCommands[] = {
    {"create", R"(usage: raidscope-cli create --level=1|10|5 --raid-devices=N [OPTIONS] MEMBER...

Makes a new md array (superblock 1.2) of the members given: image files or
block devices. Every member is checked before anything is written.
  --level=1|10|5          RAID level
  --raid-devices=N        how many members (as many as given)
  --layout=n2|f2|o2       raid10 layout (n2: near, f2: far, o2: offset)
  --layout=left-symmetric|left-asymmetric|right-symmetric|right-asymmetric
                          raid5 parity placement (default left-symmetric)
  --chunk=SIZE            raid10/raid5 chunk, a power of two from 4K (default 512K)
  --name=NAME             array name: printable text, at most 32 bytes with
                          the "host:" md puts in front of a name without ':'
  --create-files=SIZE     make the image files that do not exist yet (never
                          reuses an existing file that is not an array member)
  --force                 overwrite what members hold (a filesystem, another array)
  --bitmap=internal|none  write-intent bitmap (default: internal above 100 GiB)
  --bitmap-chunk=SIZE     the region one bitmap bit covers: a power of two from 4K
Members that are not new image files get md's initial resync.
Exit status: 0 created, 1 failed, 2 bad usage, 3 created but a member failed
during the initial resync, 128+N stopped by a signal (the resync resumes).
)"},
    {"examine", R"(usage: raidscope-cli examine MEMBER

Prints one member's md superblock, as mdadm --examine does.
)"},
    {"detail", R"(usage: raidscope-cli detail [--json] MEMBER...

Assembles the array from the members given (read-only) and describes it:
level, layout, size, state, each member's role and state.
  --json   the same as a JSON object
)"},
    {"write", R"(usage: raidscope-cli write [--offset=BYTES] [--run] MEMBER... < DATA

Writes standard input into the array at --offset (default 0). Data that
cannot fit is refused before anything is written: a file by its size, a
pipe by reading ahead 32 MiB (a longer pipe is written as it comes).
  --offset=BYTES   where in the array (512K, 1M... accepted)
  --run            start the array even with members missing
Exit status: 0 written, 1 failed (it says how many bytes were written
before), 2 bad usage (nothing written), 3 written but a member failed
meanwhile (the array is degraded), 128+N stopped by a signal (it says how
many bytes were written; the array is closed cleanly).
)"},
    {"read", R"(usage: raidscope-cli read --offset=BYTES --length=BYTES MEMBER... > DATA

Reads --length bytes of the array from --offset to standard output.
Exit status: 0 read, 1 failed, 2 bad usage, 3 read but a member failed
meanwhile (the array is degraded).
)"},
    {"fail", R"(usage: raidscope-cli fail --member=PATH MEMBER...

Marks PATH faulty, as mdadm --fail does; refused when it holds the last
working copy of some data.
  --run   start the array even with members missing
)"},
    {"add", R"(usage: raidscope-cli add --member=PATH [--force] [--create-files=SIZE] MEMBER...

Adds PATH in place of a missing or failed member and rebuilds onto it. A
rebuild that was stopped resumes where it got; a member already complete is
left as it is (exit 0).
  --create-files=SIZE   make PATH as a new image file of SIZE if it does not exist
  --force               overwrite what PATH holds (a filesystem, another array)
  --run                 start the array even with members missing
Exit status: 0 rebuilt, 1 failed, 2 bad usage, 3 rebuilt but another member
failed meanwhile, 128+N stopped by a signal (run add again to resume).
)"},
    {"check", R"(usage: raidscope-cli check [--run] MEMBER...

Compares every copy (raid1/10) or the parity (raid5) and prints md's
mismatch count; nothing is changed.
Exit status: 0 compared, 1 failed, 3 compared but a member failed meanwhile,
4 the array has no redundancy left (nothing to compare with), 128+N stopped
by a signal.
)"},
    {"repair", R"(usage: raidscope-cli repair [--run] MEMBER...

Compares as check does and rewrites what differs (the first copy wins, or
the parity is recomputed).
Exit status: as check.
)"},
    {"tunables", R"(usage: raidscope-cli tunables [--json] [--run] [MEMBER...]

Lists every tunable (range, unit, what it does); with members, the array's
current values.
)"},
    {"devices", R"(usage: raidscope-cli devices [--json] [--all] [--watch]

Lists block devices: size, rotational, io_opt, md membership, and whether
and why each is unsafe to use as a member.
  --all     also devices of size 0 (unbound loop devices, empty drives)
  --watch   then print hot-plug events until Ctrl-C
)"},
};

}  // namespace

const char* command_usage(const char* command) {
  for (const auto& c : kCommands)
    if (!std::strcmp(c.command, command)) return c.text;
  return nullptr;
}

}  // namespace rs::cli
