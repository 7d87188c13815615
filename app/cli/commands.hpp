// raidscope-cli subcommands. Each returns the process exit status and
// throws UsageError (status 2) or RuntimeError (status 1) with a message.
#pragma once
#include <string>
#include <vector>

namespace rs::cli {

using Argv = std::vector<std::string>;

int cmd_create(const Argv& args);
int cmd_examine(const Argv& args);
int cmd_detail(const Argv& args);
int cmd_write(const Argv& args);
int cmd_read(const Argv& args);
int cmd_fail(const Argv& args);
int cmd_add(const Argv& args);
int cmd_check(const Argv& args, bool repair);
int cmd_bench(const Argv& args);
int cmd_simulate(const Argv& args);
int cmd_tunables(const Argv& args);
int cmd_report(const Argv& args);
int cmd_devices(const Argv& args);
int cmd_serve(const Argv& args);

}  // namespace rs::cli
