#include "discovery/queue_properties.hpp"

#include <filesystem>

#include "discovery/sysfs_attr.hpp"

namespace rs::discovery {
namespace fs = std::filesystem;

std::optional<QueueProperties> queue_properties(uint64_t rdev, const SystemRoots& roots) {
  const fs::path dev = fs::path(roots.sysfs) / "dev/block" / major_minor(rdev);
  for (const fs::path& queue : {dev / "queue", dev / ".." / "queue"}) {
    auto rotational = read_uint_attr(queue / "rotational");
    if (!rotational) continue;
    QueueProperties q;
    q.rotational = *rotational != 0;
    q.io_opt = uint32_t(read_uint_attr(queue / "optimal_io_size").value_or(0));
    q.logical_block_size = uint32_t(read_uint_attr(queue / "logical_block_size").value_or(512));
    q.physical_block_size = uint32_t(read_uint_attr(queue / "physical_block_size").value_or(q.logical_block_size));
    return q;
  }
  return std::nullopt;
}

namespace {

// The device number whose queue stands for the storage under `id`:
// followed through loop devices, at most a few levels deep (a loop over a
// file on a loop over a file...).
std::optional<uint64_t> storage_device(const Identity& id, const SystemRoots& roots) {
  if (id.kind == Identity::Kind::file) return id.dev;
  uint64_t rdev = id.rdev;
  std::optional<LoopBacking> backing = id.loop;
  for (int depth = 0; depth < 8 && backing; ++depth) {
    rdev = backing->rdev ? backing->rdev : backing->dev;
    backing.reset();
    const fs::path dir = fs::path(roots.sysfs) / "dev/block" / major_minor(rdev);
    std::error_code ec;
    if (!fs::is_directory(dir / "loop", ec)) break;
    const std::string name = fs::canonical(dir, ec).filename().string();
    if (ec) break;
    if (auto next = loop_backing(rdev, roots.dev + "/" + name, roots); next.ok()) backing = *next;
  }
  return rdev;
}

}  // namespace

std::optional<QueueProperties> member_queue_properties(const Identity& id, const SystemRoots& roots) {
  auto own = id.kind == Identity::Kind::block_device ? queue_properties(id.rdev, roots) : std::nullopt;
  if (id.kind == Identity::Kind::block_device && !id.loop) return own;
  auto under = storage_device(id, roots);
  auto lower = under ? queue_properties(*under, roots) : std::nullopt;
  if (!lower) return own;
  if (!own) return lower;  // an image file: the disk's figures are all there is
  own->rotational = lower->rotational;
  own->io_opt = lower->io_opt;
  return own;
}

}  // namespace rs::discovery
