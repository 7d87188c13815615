// Array management commands: create, examine, detail, read, write, fail,
// add, check, repair.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "io/member_device.hpp"
#include "ondisk/examine.hpp"
#include "raid/array.hpp"
#include "raid/member_superblock.hpp"

namespace rs::cli {
namespace {

const std::set<std::string> kNoFlags;

std::unique_ptr<raid::Array> assemble_or_throw(const std::vector<std::string>& members,
                                               const std::string& add_target = {}) {
  if (members.empty()) throw UsageError("no members given");
  std::string err;
  auto arr = add_target.empty() ? raid::Array::assemble(members, &err)
                                : raid::Array::assemble_for_add(members, add_target, &err);
  if (!arr) throw RuntimeError(err);
  for (auto& r : arr->rejected())
    std::fprintf(stderr, "raidscope-cli: warning: %s not used: %s\n", r.path.c_str(), r.reason.c_str());
  return arr;
}

void close_or_throw(raid::Array& arr) {
  std::string err;
  if (!arr.close(&err)) throw RuntimeError(err);
}

std::string human(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace

int cmd_create(const Argv& argv) {
  Args a(argv, {"level", "raid-devices", "layout", "chunk", "name", "create-files"}, {"force"});
  raid::CreateOptions o;
  auto level = a.integer("level", 0, 100);
  if (!level) throw UsageError("missing required option --level (1 or 10)");
  if (*level != 1 && *level != 10)
    throw UsageError("--level=" + std::to_string(*level) + " is not supported (1 or 10)");
  o.level = int(*level);
  auto n = a.integer("raid-devices", 2, 32);
  if (!n) throw UsageError("missing required option --raid-devices");
  o.raid_disks = int(*n);
  if (auto l = a.value("layout")) {
    if (o.level != 10) throw UsageError("--layout applies to raid10 only");
    std::string err;
    auto word = raid::parse_raid10_layout(*l, &err);
    if (!word) throw UsageError(err);
    o.layout = *word;
  }
  if (auto c = a.size("chunk")) {
    if (o.level != 10) throw UsageError("--chunk applies to raid10 only (raid1 has no chunks)");
    if (*c < 4096 || (*c & (*c - 1))) throw UsageError("--chunk must be a power of two of at least 4K");
    if (*c > (1ull << 30)) throw UsageError("--chunk must be at most 1G");
    o.chunk_bytes = uint32_t(*c);
  }
  o.name = a.value("name").value_or("");
  o.force = a.flag("force");
  o.create_files_bytes = a.size("create-files").value_or(0);
  if (a.value("create-files") && o.create_files_bytes == 0)
    throw UsageError("--create-files needs a size above 0");
  if (size_t(o.raid_disks) != a.positional().size())
    throw UsageError("--raid-devices=" + std::to_string(o.raid_disks) + " but " +
                     std::to_string(a.positional().size()) + " member(s) given");
  ProgressPrinter progress("initial resync");
  std::string err;
  auto arr = raid::Array::create(
      o, a.positional(), [&](const raid::Progress& p) { progress.update(p.done_bytes, p.total_bytes); },
      &err);
  if (!arr) throw RuntimeError(err);
  close_or_throw(*arr);
  const auto& g = arr->geometry();
  std::string shape = g.level == 10
                          ? "layout " + g.layout_name() + ", chunk " + human(uint64_t(g.chunk_sectors) * 512)
                          : std::to_string(g.raid_disks) + " mirrors";
  std::printf("created raid%d array %s: %d members, %s, %s (%llu bytes)\n", g.level,
              ondisk::uuid_to_string(arr->superblock().set_uuid).c_str(), g.raid_disks, shape.c_str(),
              human(arr->size_bytes()).c_str(), static_cast<unsigned long long>(arr->size_bytes()));
  return 0;
}

int cmd_examine(const Argv& argv) {
  Args a(argv, {}, {});
  if (a.positional().size() != 1) throw UsageError("examine takes exactly one member");
  const std::string& path = a.positional()[0];
  std::string err;
  auto dev = io::MemberDevice::open(path, io::OpenMode::ReadOnly, &err);
  if (!dev) throw RuntimeError(err);
  auto res = raid::read_superblock(*dev);
  if (!res.ok) throw RuntimeError(res.error);
  std::fputs(ondisk::examine_text(res.sb, path, dev->size_bytes()).c_str(), stdout);
  return 0;
}

int cmd_detail(const Argv& argv) {
  Args a(argv, {}, {"json"});
  auto arr = assemble_or_throw(a.positional());
  const auto& g = arr->geometry();
  const auto& sb = arr->superblock();
  if (a.flag("json")) {
    nlohmann::ordered_json j;
    j["array_uuid"] = ondisk::uuid_to_string(sb.set_uuid);
    j["name"] = sb.set_name;
    j["level"] = ondisk::level_name(sb.level);
    j["layout"] = g.layout_name();
    j["chunk_bytes"] = uint64_t(g.chunk_sectors) * 512;
    j["size_bytes"] = arr->size_bytes();
    j["used_dev_bytes"] = g.dev_sectors * 512;
    j["data_offset_bytes"] = g.data_offset * 512;
    j["raid_devices"] = g.raid_disks;
    j["working_devices"] = arr->working_members();
    j["state"] = arr->state_text();
    j["degraded"] = arr->degraded();
    j["events"] = sb.events;
    j["read_policy"] = std::string(balance::policy_name(arr->policy()));
    auto& members = j["members"] = nlohmann::ordered_json::array();
    for (int i = 0; i < g.raid_disks; ++i) {
      const auto& s = arr->slot(i);
      nlohmann::ordered_json m;
      m["role"] = i;
      m["state"] = raid::slot_state_name(s.st());
      m["path"] = s.dev ? s.dev->path() : "";
      if (s.dev) {
        m["direct_io"] = s.dev->info().direct;
        m["rotational"] = s.dev->info().rotational;
        m["size_bytes"] = s.dev->size_bytes();
      }
      if (s.st() == raid::SlotState::Recovering) m["recovery_offset_bytes"] = s.recovery_offset.load() * 512;
      if (!s.note.empty()) m["note"] = s.note;
      members.push_back(m);
    }
    auto& rej = j["not_used"] = nlohmann::ordered_json::array();
    for (auto& r : arr->rejected()) rej.push_back({{"path", r.path}, {"reason", r.reason}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("        Array UUID : %s\n", ondisk::uuid_to_string(sb.set_uuid).c_str());
  std::printf("              Name : %s\n", sb.set_name.c_str());
  std::printf("        Raid Level : %s\n", ondisk::level_name(sb.level).c_str());
  if (g.level == 10) {
    std::printf("            Layout : %s\n", g.layout_name().c_str());
    std::printf("        Chunk Size : %uK\n", g.chunk_sectors / 2);
  }
  std::printf("        Array Size : %s (%llu bytes)\n", human(arr->size_bytes()).c_str(),
              static_cast<unsigned long long>(arr->size_bytes()));
  std::printf("     Used Dev Size : %s\n", human(g.dev_sectors * 512).c_str());
  std::printf("      Raid Devices : %d\n", g.raid_disks);
  std::printf("   Working Devices : %d\n", arr->working_members());
  std::printf("             State : %s\n", arr->state_text().c_str());
  std::printf("            Events : %llu\n", static_cast<unsigned long long>(sb.events));
  std::printf("       Read Policy : %s\n", std::string(balance::policy_name(arr->policy())).c_str());
  std::string note;
  auto backend = arr->make_backend(1, &note);
  std::printf("        I/O Engine : %s\n", note.empty() ? backend->describe().c_str() : note.c_str());
  std::printf("\n    Role  State         Device\n");
  for (int i = 0; i < g.raid_disks; ++i) {
    const auto& s = arr->slot(i);
    std::string extra;
    if (s.st() == raid::SlotState::Recovering)
      extra = " (rebuilt " +
              std::to_string(s.recovery_offset.load() * 100 / std::max<uint64_t>(1, g.dev_sectors)) + "%)";
    if (s.dev && !s.dev->info().direct) extra += " [" + s.dev->info().direct_note + "]";
    if (!s.note.empty() && s.st() != raid::SlotState::InSync) extra += " (" + s.note + ")";
    std::printf("    %4d  %-12s  %s%s\n", i, raid::slot_state_name(s.st()),
                s.dev ? s.dev->path().c_str() : "-", extra.c_str());
  }
  for (auto& r : arr->rejected())
    std::printf("     not used       %s (%s)\n", r.path.c_str(), r.reason.c_str());
  return 0;
}

int cmd_write(const Argv& argv) {
  Args a(argv, {"offset"}, {});
  const uint64_t offset = a.size("offset").value_or(0);
  if (a.positional().empty()) throw UsageError("no members given");
  if (::isatty(0)) throw UsageError("write reads the data from standard input; redirect a file into it");
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  auto arr = assemble_or_throw(a.positional());
  if (offset > arr->size_bytes() || data.size() > arr->size_bytes() - offset)
    throw RuntimeError("writing " + std::to_string(data.size()) + " bytes at offset " +
                       std::to_string(offset) + " runs past the end of the array (" +
                       std::to_string(arr->size_bytes()) + " bytes); nothing written");
  std::string err;
  if (!arr->write(offset, data.data(), data.size(), &err)) throw RuntimeError(err);
  close_or_throw(*arr);
  std::fprintf(stderr, "wrote %zu bytes at offset %llu\n", data.size(),
               static_cast<unsigned long long>(offset));
  return 0;
}

int cmd_read(const Argv& argv) {
  Args a(argv, {"offset", "length"}, {});
  auto offset = a.size("offset");
  auto length = a.size("length");
  if (!offset) throw UsageError("missing required option --offset");
  if (!length) throw UsageError("missing required option --length");
  auto arr = assemble_or_throw(a.positional());
  if (*offset > arr->size_bytes() || *length > arr->size_bytes() - *offset)
    throw RuntimeError("reading " + std::to_string(*length) + " bytes at offset " + std::to_string(*offset) +
                       " runs past the end of the array (" + std::to_string(arr->size_bytes()) + " bytes)");
  std::vector<uint8_t> data(*length);
  std::string err;
  if (!arr->read(*offset, data.data(), data.size(), &err)) throw RuntimeError(err);
  if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size())
    throw RuntimeError("writing to standard output failed");
  return 0;
}

int cmd_fail(const Argv& argv) {
  Args a(argv, {"member"}, {});
  const std::string target = a.required("member");
  std::vector<std::string> members = a.positional();
  if (std::find(members.begin(), members.end(), target) == members.end()) members.push_back(target);
  auto arr = assemble_or_throw(members);
  int slot = arr->slot_of(target);
  if (slot < 0) throw RuntimeError(target + " is not an active member of this array");
  std::string err;
  if (!arr->fail_member(slot, "failed by the administrator", &err)) throw RuntimeError(err);
  close_or_throw(*arr);
  std::printf("%s (role %d) marked faulty; array is %s\n", target.c_str(), slot, arr->state_text().c_str());
  return 0;
}

int cmd_add(const Argv& argv) {
  Args a(argv, {"member", "create-files"}, {"force"});
  const std::string target = a.required("member");
  std::vector<std::string> members = a.positional();
  members.erase(std::remove(members.begin(), members.end(), target), members.end());
  auto arr = assemble_or_throw(members, target);
  if (const int slot = arr->slot_of(target); slot >= 0) {
    const auto& s = arr->slot(slot);
    std::fprintf(stderr, "raidscope-cli: resuming the interrupted rebuild of %s at %.1f%%\n", target.c_str(),
                 100.0 * double(s.recovery_offset.load()) / double(arr->geometry().dev_sectors));
  }
  ProgressPrinter progress("rebuild " + target);
  std::string err;
  if (!arr->add_member(
          target, a.flag("force"), a.size("create-files").value_or(0),
          [&](const raid::Progress& p) { progress.update(p.done_bytes, p.total_bytes); }, &err))
    throw RuntimeError(err);
  progress.finish();
  close_or_throw(*arr);
  std::printf("%s added as role %d and rebuilt; array is %s\n", target.c_str(), arr->slot_of(target),
              arr->state_text().c_str());
  return 0;
}

int cmd_check(const Argv& argv, bool repair) {
  Args a(argv, {}, {});
  auto arr = assemble_or_throw(a.positional());
  ProgressPrinter progress(repair ? "repair" : "check");
  std::string err;
  auto mismatches = arr->check(
      repair, [&](const raid::Progress& p) { progress.update(p.done_bytes, p.total_bytes); }, &err);
  if (!mismatches) throw RuntimeError(err);
  progress.finish();
  close_or_throw(*arr);
  std::printf("mismatches: %llu\n", static_cast<unsigned long long>(*mismatches));
  return 0;
}

}  // namespace rs::cli
