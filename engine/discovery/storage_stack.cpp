#include "discovery/storage_stack.hpp"

#include <sys/sysmacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "discovery/sysfs_attr.hpp"

namespace rs::discovery {

namespace fs = std::filesystem;

std::string StorageClaim::key() const {
  if (kind == Kind::file)
    return "file-" + std::to_string(major(dev)) + "." + std::to_string(minor(dev)) + "-" +
           std::to_string(ino);
  return "block-" + std::to_string(major(rdev)) + "." + std::to_string(minor(rdev));
}

namespace {

constexpr int kMaxLayers = 16;

Error unknown(const std::string& what) {
  return make_error(Errc::unsupported, "cannot tell what storage " + what);
}

class Walk {
 public:
  explicit Walk(const SystemRoots& roots) : roots_(roots) {}

  void file(uint64_t dev, uint64_t ino, const std::string& name, bool shared, const std::string& above) {
    StorageClaim c;
    c.kind = StorageClaim::Kind::file;
    c.dev = dev;
    c.ino = ino;
    c.shared = shared;
    c.name = name;
    c.chain = above.empty() ? name : above + " -> " + name;
    claims_.push_back(std::move(c));
  }

  // The block device `rdev` and what it is built on. `loop`: its backing
  // when the caller already asked the kernel (the member's own open).
  Status block(uint64_t rdev, const std::string& name, bool shared, const std::string& above, int depth,
               const std::optional<LoopBacking>* loop = nullptr) {
    if (depth >= kMaxLayers) return unknown(name + " is on: more than 16 layers of devices");
    StorageClaim c;
    c.kind = StorageClaim::Kind::block_device;
    c.rdev = rdev;
    c.shared = shared;
    c.name = name;
    c.chain = above.empty() ? name : above + " -> " + name;
    const std::string chain = c.chain;
    claims_.push_back(std::move(c));

    const fs::path dir = roots_.sysfs + "/dev/block/" + major_minor(rdev);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      return unknown(name + " (" + major_minor(rdev) + ") is built on: " + dir.string() + " does not exist");
    if (fs::is_directory(dir / "loop", ec)) {
      std::optional<LoopBacking> backing;
      if (loop) {
        backing = *loop;
      } else {
        auto b = loop_backing(rdev, node_of(dir), roots_);
        if (!b.ok()) return unknown(name + " is a loop device over: " + b.error().message);
        backing = *b;
      }
      if (backing) {
        const std::string over = backing->path.empty() ? "(backing file unknown)" : backing->path;
        if (backing->rdev) {
          if (Status s = block(backing->rdev, over, shared, chain, depth + 1); !s) return s;
        } else {
          file(backing->dev, backing->ino, over, shared, chain);
        }
      }
    }
    if (fs::exists(dir / "partition", ec)) {
      // A partition's directory is in its disk's.
      const fs::path disk = fs::canonical(dir, ec).parent_path();
      const auto whole = ec ? std::nullopt : read_dev_attr(disk / "dev");
      if (!whole) return unknown(name + " is a partition of: its disk is not found in sysfs");
      if (Status s = block(*whole, node_of(disk), true, chain, depth + 1); !s) return s;
    }
    std::vector<fs::path> slaves;  // in name order, so messages do not change from run to run
    for (const auto& slave : fs::directory_iterator(dir / "slaves", ec)) slaves.push_back(slave.path());
    std::sort(slaves.begin(), slaves.end());
    for (const auto& slave : slaves) {
      const auto number = read_dev_attr(slave / "dev");
      if (!number) return unknown(name + " is built on: " + slave.string() + " has no device number");
      if (Status s = block(*number, node_of(fs::canonical(slave, ec)), true, chain, depth + 1); !s) return s;
    }
    return {};
  }

  // One claim per storage, in the order found; an exclusive claim of a
  // storage wins over a shared one.
  std::vector<StorageClaim> take() {
    std::vector<StorageClaim> out;
    for (auto& c : claims_) {
      auto it =
          std::find_if(out.begin(), out.end(), [&](const StorageClaim& o) { return o.same_storage(c); });
      if (it == out.end())
        out.push_back(std::move(c));
      else if (!c.shared)
        it->shared = false;
    }
    return out;
  }

 private:
  // The device node of the sysfs device directory `dir`, by its uevent's
  // DEVNAME (a partition's name is not always its disk's plus a number),
  // else by the directory's name.
  std::string node_of(const fs::path& dir) const {
    std::ifstream in(dir / "uevent");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("DEVNAME=", 0) == 0) return roots_.dev + "/" + line.substr(8);
    return roots_.dev + "/" + dir.filename().string();
  }

  const SystemRoots& roots_;
  std::vector<StorageClaim> claims_;
};

}  // namespace

Result<std::vector<StorageClaim>> storage_claims(const Identity& id, const SystemRoots& roots) {
  Walk walk(roots);
  if (id.kind == Identity::Kind::file) {
    walk.file(id.dev, id.ino, id.path, false, "");
  } else if (Status s = walk.block(id.rdev, id.path, false, "", 0, &id.loop); !s) {
    return s.error();
  }
  return walk.take();
}

}  // namespace rs::discovery
