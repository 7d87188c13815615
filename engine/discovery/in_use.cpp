#include "discovery/in_use.hpp"

#include "discovery/device_usage.hpp"
#include "discovery/identity.hpp"
#include "discovery/loop_devices.hpp"

namespace rs::discovery {
namespace {

// How a loop device that reaches `target` relates to it, for the message.
std::string relation(const Identity& target, const LoopDevice& loop) {
  if (target.kind == Identity::Kind::file || !target.is_loop()) return "it backs " + loop.device_path;
  return "its backing file " + target.loop->path + " also backs " + loop.device_path;
}

}  // namespace

std::string member_in_use(const std::string& path, const SystemRoots& roots) {
  auto id = identify(path, roots);
  return id.ok() ? member_in_use(*id, roots) : "";
}

std::string member_in_use(const Identity& id, const SystemRoots& roots) {
  if (id.kind == Identity::Kind::block_device) {
    if (auto own = device_usage(id.rdev, id.path, roots); own.in_use()) return "it is " + own.reason();
  } else if (is_swap_file(id.dev, id.ino, roots)) {
    return "it is an active swap file";
  }
  for (const auto& user : loops_over(id, roots))
    if (user.usage.in_use()) return relation(id, user.loop) + ", which is " + user.usage.reason();
  return "";
}

}  // namespace rs::discovery
