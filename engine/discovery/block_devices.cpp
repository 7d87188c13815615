#include "discovery/block_devices.hpp"

#include <algorithm>
#include <filesystem>

#include "discovery/signature.hpp"
#include "discovery/sysfs_attr.hpp"

namespace rs::discovery {
namespace fs = std::filesystem;

const char* device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::disk:
      return "disk";
    case DeviceKind::partition:
      return "partition";
    case DeviceKind::loop:
      return "loop";
    case DeviceKind::device_mapper:
      return "dm";
    case DeviceKind::md:
      return "md";
  }
  return "?";
}

namespace {

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// Names in "natural" order: loop2 before loop10, sda before sdb.
bool natural_less(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

std::vector<std::string> subdirectory_names(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end(), natural_less);
  return names;
}

std::string first_of(const fs::path& dir, std::initializer_list<const char*> attrs) {
  for (const char* a : attrs)
    if (std::string v = read_attr(dir / a); !v.empty()) return v;
  return "";
}

DeviceKind kind_of(const fs::path& dir, const std::string& name, bool partition) {
  if (partition) return DeviceKind::partition;
  if (present(dir / "loop") || name.rfind("loop", 0) == 0) return DeviceKind::loop;
  if (present(dir / "dm")) return DeviceKind::device_mapper;
  if (present(dir / "md")) return DeviceKind::md;
  return DeviceKind::disk;
}

void probe_contents(BlockDevice& d) {
  auto md = read_md_membership(d.node, d.size_bytes);
  if (!md) {
    d.probe_error = md.error().message;
    return;
  }
  d.md = std::move(*md);
  d.signature = existing_signature(d.node);
  // The md superblock says more than libblkid's "linux_raid_member".
  if (d.md && d.signature.rfind("an md RAID member signature", 0) == 0) d.signature.clear();
}

// The device whose sysfs directory is `dir`; `parent` is "" for a whole device.
std::optional<BlockDevice> describe_dir(const fs::path& dir, const std::string& parent,
                                        const SystemRoots& roots, const ScanOptions& opt) {
  auto rdev = read_dev_attr(dir / "dev");
  if (!rdev) return std::nullopt;
  BlockDevice d;
  d.name = dir.filename().string();
  d.node = roots.dev + "/" + d.name;
  d.rdev = *rdev;
  d.parent = parent;
  d.kind = kind_of(dir, d.name, !parent.empty());
  d.size_bytes = read_uint_attr(dir / "size").value_or(0) * 512;
  const fs::path disk_dir = parent.empty() ? dir : dir.parent_path();
  d.model = first_of(disk_dir, {"device/model", "model"});
  d.serial = first_of(disk_dir, {"device/serial", "serial"});
  d.removable = read_uint_attr(disk_dir / "removable").value_or(0) != 0;
  d.read_only = read_uint_attr(dir / "ro").value_or(0) != 0;
  d.holders = subdirectory_names(dir / "holders");
  d.dm_name = read_attr(dir / "dm/name");
  d.queue = queue_properties(d.rdev, roots).value_or(QueueProperties{});
  if (d.kind == DeviceKind::loop) {
    auto backing = loop_backing(d.rdev, d.node, roots);
    if (backing.ok()) d.loop = *backing;
  }
  if (parent.empty())
    for (const auto& child : subdirectory_names(dir))
      if (present(dir / child / "partition")) d.partitions.push_back(child);
  Identity id;
  id.kind = Identity::Kind::block_device;
  id.path = d.node;
  id.rdev = d.rdev;
  id.loop = d.loop;
  d.effective = member_queue_properties(id, roots).value_or(d.queue);
  d.usage = device_usage(d.rdev, d.node, roots);
  if (opt.probe_contents && d.size_bytes > 0) probe_contents(d);
  return d;
}

bool wanted(const BlockDevice& d, const ScanOptions& opt) {
  return opt.include_empty || d.size_bytes > 0;
}

}  // namespace

std::vector<BlockDevice> scan_block_devices(const SystemRoots& roots, const ScanOptions& opt) {
  std::vector<BlockDevice> out;
  const fs::path block = fs::path(roots.sysfs) / "block";
  for (const auto& name : subdirectory_names(block)) {
    auto disk = describe_dir(block / name, "", roots, opt);
    if (!disk || !wanted(*disk, opt)) continue;
    const auto parts = disk->partitions;
    out.push_back(std::move(*disk));
    for (const auto& part : parts)
      if (auto p = describe_dir(block / name / part, name, roots, opt); p && wanted(*p, opt))
        out.push_back(std::move(*p));
  }
  return out;
}

std::optional<BlockDevice> describe_block_device(const std::string& name, const SystemRoots& roots,
                                                 const ScanOptions& opt) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") return std::nullopt;
  const fs::path block = fs::path(roots.sysfs) / "block";
  if (present(block / name / "dev")) return describe_dir(block / name, "", roots, opt);
  for (const auto& disk : subdirectory_names(block))
    if (present(block / disk / name / "partition"))
      return describe_dir(block / disk / name, disk, roots, opt);
  return std::nullopt;
}

}  // namespace rs::discovery
