// raidscope-cli: everything the GUI does, headless. Exit status: 0 success,
// 1 failure at run time, 2 bad usage.
#include <cstdio>
#include <cstring>
#include <exception>

#include "args.hpp"
#include "cli_support.hpp"
#include "commands.hpp"

namespace {

const char* kUsage = R"(usage: raidscope-cli COMMAND [OPTIONS] MEMBER...

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
were active at its last update; --run starts it degraded anyway.
A RAID5 with a member missing whose resync has not finished (stopped
uncleanly, or its resync interrupted) is "dirty degraded": parity may be
wrong on stripes written when it stopped, so data rebuilt for the missing
member may be wrong. write, read, fail, add, check and repair refuse to
start it; --force-dirty-degraded starts it anyway, accepting that risk.
Ctrl-C stops add/check/repair/bench cleanly (exit 130); add resumes.

Workloads:
  bench [JOBFILE] [--name=value ...] [--array=M1,M2,...] [--policy=NAME]
        [--member-profile=PROFILE|INDEX=PROFILE] [--output-format=normal|json]
        [--output=FILE] [--set-at=SECONDS:NAME=VALUE] [--telemetry=FILE.jsonl]
  simulate --scenario=NAME [--json] | --list
  (bench and simulate take --save=FILE.json: a result for `report`)

Reports:
  report --format=html|pdf|json|csv --output=FILE [--force] RESULT.json...

Run 'raidscope-cli COMMAND --help' for a command's options.
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace rs::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("raidscope-cli %s\n", RAIDSCOPE_VERSION);
    return 0;
  }
  const std::string cmd = argv[1];
  const Argv args(argv + 2, argv + argc);
  install_interrupt_handlers();
  try {
    if (cmd == "create") return cmd_create(args);
    if (cmd == "examine") return cmd_examine(args);
    if (cmd == "detail") return cmd_detail(args);
    if (cmd == "write") return cmd_write(args);
    if (cmd == "read") return cmd_read(args);
    if (cmd == "fail") return cmd_fail(args);
    if (cmd == "add") return cmd_add(args);
    if (cmd == "check") return cmd_check(args, false);
    if (cmd == "repair") return cmd_check(args, true);
    if (cmd == "bench") return cmd_bench(args);
    if (cmd == "simulate") return cmd_simulate(args);
    if (cmd == "tunables") return cmd_tunables(args);
    if (cmd == "report") return cmd_report(args);
    if (cmd == "devices") return cmd_devices(args);
    std::fprintf(stderr, "raidscope-cli: error: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
    return 2;
  } catch (const Interrupted& e) {
    std::fprintf(stderr, "raidscope-cli %s: %s\n", cmd.c_str(), e.what());
    return 128 + e.signal;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "raidscope-cli %s: error: %s\n", cmd.c_str(), e.what());
    return 2;
  } catch (const RuntimeError& e) {
    std::fprintf(stderr, "raidscope-cli %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raidscope-cli %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  }
}
