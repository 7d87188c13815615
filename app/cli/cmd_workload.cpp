// Workload commands: bench (fio-equivalent) and simulate (seed scenarios).
#include "args.hpp"
#include "commands.hpp"

namespace rs::cli {

int cmd_bench(const Argv&) { throw RuntimeError("bench is not available yet"); }
int cmd_simulate(const Argv&) { throw RuntimeError("simulate is not available yet"); }

}  // namespace rs::cli
