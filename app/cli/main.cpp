// raidscope-cli: everything the GUI does, headless. Exit status: 0 success,
// 1 failure at run time, 2 bad usage, 3 done but a member failed meanwhile,
// 4 check/repair without redundancy, 128+N a signal (usage.cpp).
#include <cstdio>
#include <cstring>
#include <exception>

#include "args.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "usage.hpp"

int main(int argc, char** argv) {
  using namespace rs::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(usage_text().c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("raidscope-cli %s\n", RAIDSCOPE_VERSION);
    return 0;
  }
  const std::string cmd = argv[1];
  const Argv args(argv + 2, argv + argc);
  // `COMMAND --help` (or -h) before any "--": that command's usage.
  if (const auto usage = command_usage(cmd))
    for (const auto& a : args) {
      if (a == "--") break;
      if (a == "--help" || a == "-h") {
        std::fputs(usage->c_str(), stdout);
        return 0;
      }
    }
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
    if (cmd == "serve") return cmd_serve(args);
    std::fprintf(stderr, "raidscope-cli: error: unknown command '%s'\n\n%s", cmd.c_str(), usage_text().c_str());
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
