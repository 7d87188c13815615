#include "discovery/loop_devices.hpp"

#include <sys/sysmacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace rs::discovery {
namespace fs = std::filesystem;

Identity LoopDevice::identity() const {
  Identity id;
  id.path = device_path;
  id.kind = Identity::Kind::block_device;
  id.rdev = rdev;
  id.loop = backing;
  return id;
}

std::vector<LoopDevice> bound_loop_devices(const SystemRoots& roots) {
  std::vector<LoopDevice> loops;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(roots.sysfs) / "block", ec)) {
    const std::string name = e.path().filename().string();
    std::error_code ec2;
    if (name.rfind("loop", 0) != 0 || !fs::is_directory(e.path() / "loop", ec2)) continue;
    unsigned maj = 0, min = 0;
    char colon = 0;
    std::ifstream dev(e.path() / "dev");
    if (!(dev >> maj >> colon >> min) || colon != ':') continue;
    LoopDevice loop;
    loop.name = name;
    loop.device_path = roots.dev + "/" + name;
    loop.rdev = makedev(maj, min);
    auto backing = loop_backing(loop.rdev, loop.device_path, roots);
    if (!backing.ok() || !*backing) continue;  // detached meanwhile, or unreachable
    loop.backing = **backing;
    loops.push_back(std::move(loop));
  }
  // Directory order is arbitrary; messages name loop devices in number order.
  std::sort(loops.begin(), loops.end(), [](const LoopDevice& a, const LoopDevice& b) {
    return a.name.size() != b.name.size() ? a.name.size() < b.name.size() : a.name < b.name;
  });
  return loops;
}

std::vector<LoopUser> loops_over(const Identity& target, const SystemRoots& roots) {
  std::vector<LoopUser> users;
  for (auto& loop : bound_loop_devices(roots)) {
    if (target.kind == Identity::Kind::block_device && target.rdev == loop.rdev) continue;
    if (!same_storage(target, loop.identity())) continue;
    DeviceUsage usage = device_usage(loop.rdev, loop.device_path, roots);
    users.push_back({std::move(loop), std::move(usage)});
  }
  return users;
}

}  // namespace rs::discovery
