// Where discovery reads the system's state. The defaults are the real
// system; tests point them at fixture trees that mimic the parts they need
// (/sys/block/loopN/..., /proc/self/mountinfo, /proc/swaps).
#pragma once
#include <string>

namespace rs::discovery {

struct SystemRoots {
  std::string sysfs = "/sys";
  std::string proc = "/proc";
  std::string dev = "/dev";  // device nodes: <dev>/loopN
};

}  // namespace rs::discovery
