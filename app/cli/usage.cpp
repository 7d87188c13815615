#include "usage.hpp"

#include <algorithm>
#include <utility>

#include "levels/levels.hpp"

namespace rs::cli {

namespace {

const char* const kUsageText = R"(usage: raidscope-cli COMMAND [OPTIONS] MEMBER...

Array commands (the array is the set of members given):
  create --level={levels} --raid-devices=N [--layout=LAYOUT] [--chunk=512K]
         [--name=NAME] [--force] [--create-files=SIZE]
         [--bitmap=internal|none] [--bitmap-chunk=SIZE] MEMBER...
  examine MEMBER                     print one member's md superblock
  detail [--json] MEMBER...          assemble and describe the array
  write [--offset=BYTES] [--run] MEMBER... < data
  read --offset=BYTES --length=BYTES MEMBER... > data
  fail --member=PATH MEMBER...       mark a member faulty
  add --member=PATH [--member=PATH2] [--force] [--create-files=SIZE] MEMBER...
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
A RAID5 with a member missing whose resync has not finished (stopped
uncleanly, or its resync interrupted) is "dirty degraded": parity may be
wrong on stripes written when it stopped, so data rebuilt for the missing
member may be wrong. write, read, fail, add, check and repair refuse to
start it; --force-dirty-degraded starts it anyway, accepting that risk.
Ctrl-C (or SIGTERM, SIGHUP, SIGPIPE, SIGUSR1) stops add/check/repair/write/
bench cleanly: the array is closed and add resumes where it stopped.

Serving:
  serve [--nbd=unix:PATH|tcp:127.0.0.1:PORT] [--name=EXPORT] [--read-only]
        [--listen-any] [--fuse=DIR] MEMBER...
                                     the array as an NBD export (fio, qemu,
                                     nbdcopy...) until Ctrl-C; --fuse=DIR also
                                     as the file DIR/array, for losetup + mkfs

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

struct CommandUsage {
  const char* command;
  const char* text;
};

constexpr CommandUsage kCommands[] = {
    {"create", R"(usage: raidscope-cli create --level={levels} --raid-devices=N [OPTIONS] MEMBER...

Makes a new md array (superblock 1.2) of the members given: image files or
block devices. Every member is checked before anything is written.
  --level={levels}          RAID level
  --raid-devices=N        how many members (as many as given)
{layouts}  --chunk=SIZE            {chunked} chunk, a power of two from 4K to 1G (default 512K)
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
    {"add", R"(usage: raidscope-cli add --member=PATH [--member=PATH2] [--force] [--create-files=SIZE] MEMBER...

Adds PATH in place of a missing or failed member and rebuilds onto it. With
--member given twice (a RAID6 with two members missing) both are added and
rebuilt together in one pass over the array. A rebuild that was stopped
resumes where it got; a member already complete is left as it is (exit 0).
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
    {"serve", R"(usage: raidscope-cli serve [OPTIONS] MEMBER...

Serves the array over NBD (the Network Block Device protocol) to programs
that speak it: fio --ioengine=nbd, qemu-img and qemu-io, nbdcopy, nbdinfo,
nbdfuse, the kernel's nbd-client. Prints the URI, then each client that
connects or leaves and each member that fails; Ctrl-C or SIGTERM stops
serving and closes the array cleanly.
  --nbd=unix:PATH         listen on a unix socket (default:
                          $XDG_RUNTIME_DIR/raidscope-NAME.sock, else /tmp)
  --nbd=tcp:HOST:PORT     listen on TCP; HOST must be loopback (127.0.0.1,
                          ::1, localhost) unless --listen-any; port 0 picks one
  --listen-any            allow an address other machines reach: NBD has no
                          authentication, anyone reaching it reads and writes
  --name=EXPORT           the export's name (default raidscope)
  --read-only             clients may only read
  --fuse=DIR              also expose the array as the regular file DIR/array
                          (through qemu-storage-daemon's FUSE export), so that
                          losetup -f --show DIR/array, mkfs and mount work on a
                          kernel without nbd
  --run, --force, --force-dirty-degraded   as for write
Requests must be aligned to the array's unit (512 bytes on raid1/10, 4096
on raid5; the minimum block size clients are told) or get EINVAL. FLUSH and
FUA make writes durable on every member; TRIM changes nothing; several
connections may share the export (a flush on one covers all).
While serving, standard input takes one command a line:
  fail PATH   mark a member faulty; serving goes on degraded
  add PATH    add a member in the failed slot and rebuild it while serving
  status      the array, its tasks and the connected clients
  stop        stop serving (as Ctrl-C)
Exit status: 0 stopped, 1 failed, 2 bad usage, 3 stopped but a member failed
while serving.
)"},
    {"devices", R"(usage: raidscope-cli devices [--json] [--all] [--watch]

Lists block devices: size, rotational, io_opt, md membership, and whether
and why each is unsafe to use as a member.
  --all     also devices of size 0 (unbound loop devices, empty drives)
  --watch   then print hot-plug events until Ctrl-C
)"},
};

// The level table's part of the text: {levels} (1|10|5), {chunked}
// (raid10/raid5) and {layouts} (a line per level that has layouts).
std::string with_levels(std::string text) {
  const raid::LevelTable& table = levels::builtin();
  std::string levels_text, chunked, layouts;
  for (const auto& l : table.levels) {
    levels_text += (levels_text.empty() ? "" : "|") + std::to_string(l.level);
    if (l.chunked) chunked += (chunked.empty() ? "" : "/") + std::string(l.name);
    if (!l.has_layouts()) continue;
    std::string names;
    for (const auto& n : l.layout_names(std::max(l.min_members, 4))) names += (names.empty() ? "" : "|") + n;
    layouts += "  --layout=" + names + "\n                          " + l.name + " layout (default " +
               l.layout_name(l.default_layout) + ")\n";
  }
  for (auto [key, value] : {std::pair<std::string, std::string>{"{levels}", levels_text},
                            {"{chunked}", chunked},
                            {"{layouts}", layouts}})
    for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
  return text;
}

}  // namespace

std::string usage_text() { return with_levels(kUsageText); }

std::optional<std::string> command_usage(const std::string& command) {
  for (const auto& c : kCommands)
    if (command == c.command) return with_levels(c.text);
  return std::nullopt;
}

}  // namespace rs::cli
