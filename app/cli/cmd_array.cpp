// Array management commands: create, examine, detail, read, write, fail,
// add, check, repair.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "args.hpp"
#include "balance/policy.hpp"
#include "base/printable.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "discovery/signature.hpp"
#include "io/member_device.hpp"
#include "levels/levels.hpp"
#include "member_failures.hpp"
#include "ondisk/examine.hpp"
#include "open_array.hpp"
#include "raid/array.hpp"
#include "raid/member_superblock.hpp"
#include "raid/sync_io.hpp"
#include "write_input.hpp"

namespace rs::cli {
namespace {

constexpr size_t kStreamPiece = 1 << 20;  // read/write move stdin/stdout through in 1 MiB pieces

raid::AssembleOptions writable(const Args& a) {
  raid::AssembleOptions o;
  o.run = a.flag("run");
  allow_unprotected_members(a.flag("force"));
  o.start_dirty_degraded = a.flag("force-dirty-degraded");
  return o;
}

// Reads the data, writes nothing.
raid::AssembleOptions reading(const Args& a) {
  raid::AssembleOptions o;
  o.read_only = true;
  o.start_dirty_degraded = a.flag("force-dirty-degraded");
  return o;
}

// Looks at the metadata only.
raid::AssembleOptions looking() {
  raid::AssembleOptions o;
  o.describe_only = true;
  return o;
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

// --create-files makes image files: an existing regular file with no md
// superblock is not one it made (someone's data, or a typo): refused before
// anything is written. Without --create-files it may be used as a member.
void refuse_unknown_existing_files(const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    struct stat st {};
    if (p.empty() || ::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    auto dev = io::MemberDevice::open(p, io::OpenMode::ReadOnly);
    if (dev && raid::has_md_magic(raid::read_superblock(**dev))) continue;
    const std::string sig = discovery::existing_signature(p);
    throw RuntimeError(p + ": already exists" + (sig.empty() ? "" : " (it holds " + sig + ")") +
                       " and is not an array member; --create-files only makes new image files (remove it or "
                       "name a new path, or leave out --create-files to use this file as a member)");
  }
}

std::string level_list() {
  std::string s;
  for (const auto& l : levels::builtin().levels) s += (s.empty() ? "" : ", ") + std::to_string(l.level);
  return s;
}

}  // namespace

int cmd_create(const Argv& argv) {
  Args a(argv, {"level", "raid-devices", "layout", "chunk", "name", "create-files", "bitmap", "bitmap-chunk"},
         {"force"});
  raid::CreateOptions o;
  auto level = a.integer("level", 0, 100);
  if (!level) throw UsageError("missing required option --level (" + level_list() + ")");
  const raid::LevelInfo* info = levels::builtin().find(int(*level));
  if (!info)
    throw UsageError("--level=" + std::to_string(*level) + " is not supported (" + level_list() + ")");
  o.level = int(*level);
  auto n = a.integer("raid-devices", info->min_members, info->max_members);
  if (!n) throw UsageError("missing required option --raid-devices");
  o.raid_disks = int(*n);
  // Layout and chunk as the level's row takes them; mdadm's defaults when not given.
  if (auto l = a.value("layout")) {
    if (!info->has_layouts())
      throw UsageError("--layout applies to " + levels::builtin().names_with_layouts() + " only (" +
                       info->name + " has no layouts)");
    o.layout = check(info->parse_layout(*l, o.raid_disks));
  }
  if (auto c = a.size("chunk")) {
    if (!info->chunked)
      throw UsageError("--chunk applies to " + levels::builtin().names_chunked() + " only (" + info->name +
                       " has no chunks)");
    if (*c > raid::kMaxChunkBytes) throw UsageError("--chunk must be a power of two from 4K to 1G");
    o.chunk_bytes = uint32_t(*c);
  }
  if (auto b = a.value("bitmap")) {
    if (*b == "internal")
      o.bitmap = raid::BitmapMode::internal;
    else if (*b == "none")
      o.bitmap = raid::BitmapMode::none;
    else
      throw UsageError("--bitmap=" + *b + ": internal or none (default: internal above 100 GiB, as mdadm)");
  }
  if (auto c = a.size("bitmap-chunk")) {
    // 0 would silently mean "choose one": a bit must cover something.
    if (*c < 4096 || (*c & (*c - 1)))
      throw UsageError("--bitmap-chunk=" + *a.value("bitmap-chunk") +
                       ": the region one bitmap bit covers must be a power of two of at least 4K (leave the "
                       "option out to have one chosen)");
    if (*c > (1ull << 31)) throw UsageError("--bitmap-chunk must be at most 2G");
    o.bitmap_chunk_bytes = uint32_t(*c);
    if (o.bitmap == raid::BitmapMode::automatic) o.bitmap = raid::BitmapMode::internal;
  }
  o.name = a.value("name").value_or("");
  o.force = a.flag("force");
  o.create_files_bytes = a.size("create-files").value_or(0);
  if (a.value("create-files") && o.create_files_bytes == 0)
    throw UsageError("--create-files needs a size above 0");
  if (size_t(o.raid_disks) != a.positional().size())
    throw UsageError("--raid-devices=" + std::to_string(o.raid_disks) + " but " +
                     std::to_string(a.positional().size()) + " member(s) given");
  if (o.create_files_bytes) refuse_unknown_existing_files(a.positional());
  allow_unprotected_members(o.force);
  session::SessionOptions so;
  so.run_sampler = false;
  OpenArray arr;
  arr.session = check(session::ArraySession::create(o, a.positional(), so));
  arr.client = check(arr.session->attach(session::ClientKind::cli, "create"));
  warn_unprotected_members(arr.array(), "create");
  MemberFailures failures(arr.array(), arr.session);
  if (auto resync = arr->resync_task()) task_outcome(arr, wait_for_task(resync, "initial resync"));
  char made[512];
  std::snprintf(made, sizeof made, "created %s array %s: %d members, %s, %s (%llu bytes)\n",
                arr->level().name, ondisk::uuid_to_string(arr->superblock().set_uuid).c_str(),
                arr->raid_disks(), arr->personality().describe().c_str(), human(arr->size_bytes()).c_str(),
                static_cast<unsigned long long>(arr->size_bytes()));
  close_or_throw(arr);
  const int status = failures.print();
  std::fputs(made, stdout);
  return status;
}

int cmd_examine(const Argv& argv) {
  Args a(argv, {}, {});
  if (a.positional().size() != 1) throw UsageError("examine takes exactly one member");
  const std::string& path = a.positional()[0];
  auto dev = io::MemberDevice::open(path, io::OpenMode::ReadOnly);
  if (!dev) throw RuntimeError(dev.error().message);
  auto sb = raid::read_superblock(**dev);
  if (!sb) throw RuntimeError(sb.error().message);
  std::fputs(ondisk::examine_text(*sb, path, (*dev)->size_bytes()).c_str(), stdout);
  return 0;
}

namespace {

void detail_json(raid::Array& arr) {
  const auto& g = arr.shape();
  const auto sb = arr.superblock();
  const raid::TableRef t = arr.table();
  nlohmann::ordered_json j;
  j["array_uuid"] = ondisk::uuid_to_string(sb.set_uuid);
  j["name"] = sb.set_name;
  j["level"] = arr.level().name;
  j["layout"] = arr.personality().layout_name();
  j["chunk_bytes"] = uint64_t(g.chunk_sectors) * 512;
  j["size_bytes"] = arr.size_bytes();
  j["used_dev_bytes"] = g.dev_sectors * 512;
  j["data_offset_bytes"] = g.data_offset * 512;
  j["raid_devices"] = g.raid_disks;
  j["working_devices"] = arr.working_members();
  j["state"] = arr.state_text();
  j["degraded"] = arr.degraded();
  j["resync_pending"] = arr.resync_pending();
  if (arr.resync_pending()) j["resync_offset_sectors"] = arr.resync_point();
  j["events"] = sb.events;
  auto policy = arr.tunables().get(balance::kReadPolicy.name);
  if (policy) j["read_policy"] = *policy;
  if (const auto* bm = arr.bitmap())
    j["bitmap"] = {
        {"chunk_bytes", bm->layout().chunk_bytes}, {"chunks", bm->chunks()}, {"dirty", bm->dirty_bits()}};
  j["max_read_errors"] = arr.max_read_errors();
  auto& members = j["members"] = nlohmann::ordered_json::array();
  for (int i = 0; i < g.raid_disks; ++i) {
    const raid::Member& m = (*t)[i];
    nlohmann::ordered_json e;
    e["role"] = i;
    e["state"] = m.present() ? raid::member_state_name(m.state) : "missing";
    e["path"] = m.name;
    if (m.dev) {
      e["direct_io"] = m.dev->info().direct;
      e["rotational"] = m.dev->info().rotational;
      e["size_bytes"] = m.dev->size_bytes();
    }
    if (m.state == raid::MemberState::recovering)
      e["recovery_offset_bytes"] = arr.runtime(i).recovery_offset.load() * 512;
    // md's read_errors (halved every hour; the threshold's count) and
    // corrected_errors (sectors rewritten after read errors, kept in the
    // member's superblock: sysfs `errors`).
    e["read_errors"] = arr.runtime(i).read_errors.load();
    e["corrected_errors"] = arr.runtime(i).counters.corrected_errors.load();
    if (std::string note = arr.member_note(i); !note.empty()) e["note"] = note;
    members.push_back(e);
  }
  auto& rej = j["not_used"] = nlohmann::ordered_json::array();
  for (auto& r : arr.rejected()) rej.push_back({{"path", r.path}, {"reason", r.reason}});
  std::cout << j.dump(2) << "\n";
}

}  // namespace

int cmd_detail(const Argv& argv) {
  Args a(argv, {}, {"json"});
  auto arr = open_or_throw(a.positional(), looking(), "detail");
  if (a.flag("json")) {
    detail_json(arr.array());
    return 0;
  }
  const auto& g = arr->shape();
  const auto sb = arr->superblock();
  std::printf("        Array UUID : %s\n", ondisk::uuid_to_string(sb.set_uuid).c_str());
  std::printf("              Name : %s\n", printable(sb.set_name, 32).c_str());
  std::printf("        Raid Level : %s\n", arr->level().name);
  if (!arr->personality().layout_name().empty())
    std::printf("            Layout : %s\n", arr->personality().layout_name().c_str());
  if (g.chunk_sectors) std::printf("        Chunk Size : %uK\n", g.chunk_sectors / 2);
  std::printf("        Array Size : %s (%llu bytes)\n", human(arr->size_bytes()).c_str(),
              static_cast<unsigned long long>(arr->size_bytes()));
  std::printf("     Used Dev Size : %s\n", human(g.dev_sectors * 512).c_str());
  std::printf("      Raid Devices : %d\n", g.raid_disks);
  std::printf("   Working Devices : %d\n", arr->working_members());
  std::printf("             State : %s\n", arr->state_text().c_str());
  std::printf("            Events : %llu\n", static_cast<unsigned long long>(sb.events));
  if (auto policy = arr->tunables().get(balance::kReadPolicy.name))
    std::printf("       Read Policy : %s\n", policy->c_str());
  if (const auto* bm = arr->bitmap())
    std::printf("     Intent Bitmap : Internal, %llu chunks of %s, %llu dirty\n",
                static_cast<unsigned long long>(bm->chunks()), human(bm->layout().chunk_bytes).c_str(),
                static_cast<unsigned long long>(bm->dirty_bits()));
  const io::RealBackend engine = arr->open_backend(1);
  std::printf("        I/O Engine : %s\n", engine.fallback_note.empty() ? engine.backend->describe().c_str()
                                                                        : engine.fallback_note.c_str());
  std::printf("\n    Role  State         Device\n");
  const raid::TableRef t = arr->table();
  for (int i = 0; i < g.raid_disks; ++i) {
    const raid::Member& m = (*t)[i];
    std::string extra;
    if (m.state == raid::MemberState::recovering)
      extra = " (rebuilt " +
              std::to_string(arr->runtime(i).recovery_offset.load() * 100 /
                             std::max<uint64_t>(1, g.dev_sectors)) +
              "%)";
    if (m.dev && !m.dev->info().direct) extra += " [" + m.dev->info().direct_note + "]";
    if (const uint64_t c = arr->runtime(i).counters.corrected_errors.load())
      extra += " (" + std::to_string(c) + " sectors rewritten after read errors)";
    if (std::string n = arr->member_note(i); !n.empty() && m.state != raid::MemberState::in_sync)
      extra += " (" + n + ")";
    std::printf("    %4d  %-12s  %s%s\n", i, m.present() ? raid::member_state_name(m.state) : "missing",
                m.name.empty() ? "-" : m.name.c_str(), extra.c_str());
  }
  for (auto& r : arr->rejected())
    std::printf("     not used       %s (%s)\n", r.path.c_str(), r.reason.c_str());
  return 0;
}

namespace {

// Why data that does not fit is refused, before anything is written.
std::string past_end(const WriteInput& in, uint64_t offset, uint64_t size) {
  const std::string fit = std::to_string(size - offset) + " bytes that fit between offset " +
                          std::to_string(offset) + " and the end of the array (" + std::to_string(size) +
                          " bytes)";
  if (in.measured() && in.regular_file())
    return "the data is " + std::to_string(in.known()) + " bytes, more than the " + fit + "; nothing written";
  return "standard input holds more than the " + fit + "; nothing written";
}

}  // namespace

int cmd_write(const Argv& argv) {
  Args a(argv, {"offset"}, {"run", "force", "force-dirty-degraded"});
  const uint64_t offset = a.size("offset").value_or(0);
  if (a.positional().empty()) throw UsageError("no members given");
  if (::isatty(0)) throw UsageError("write reads the data from standard input; redirect a file into it");
  auto arr = open_or_throw(a.positional(), writable(a), "write");
  // The range first: nothing is written when the data cannot fit.
  const uint64_t size = arr->size_bytes();
  if (offset > size)
    throw UsageError("--offset=" + std::to_string(offset) + " is past the end of the array (" +
                     std::to_string(size) + " bytes); nothing written");
  WriteInput in(size - offset);
  if (!in.error().empty())
    throw RuntimeError("reading standard input failed: " + in.error() + "; nothing written");
  if (interrupted_signal()) close_or_throw(arr, "nothing written (it was still reading standard input)");
  if (!in.fits()) throw UsageError(past_end(in, offset, size));
  MemberFailures failures(arr.array(), arr.session);
  std::optional<raid::SyncIo> sio(std::in_place, arr.array());
  std::vector<uint8_t> piece(kStreamPiece);
  uint64_t done = 0;
  auto wrote = [&] { return "wrote " + std::to_string(done) + " bytes at offset " + std::to_string(offset); };
  while (!interrupted_signal()) {
    const size_t n = in.next(piece.data(), piece.size());
    if (n == 0) break;
    if (n > size - offset - done)  // a pipe longer than the read-ahead: its length was not known
      throw RuntimeError("standard input runs past the end of the array (" + std::to_string(size) +
                         " bytes); " + wrote() +
                         " before it (give the data as a file to have it measured before anything is "
                         "written)");
    if (Status st = sio->write(offset + done, piece.data(), n); !st)
      throw RuntimeError(st.error().message + "; " + wrote() + " before the failure");
    done += n;
  }
  if (!in.error().empty())
    throw RuntimeError("reading standard input failed: " + in.error() + "; " + wrote() + " before it");
  sio.reset();  // its port goes before the command leaves the array
  close_or_throw(arr, wrote());
  const int status = failures.print();
  std::fprintf(stderr, "%s\n", wrote().c_str());
  return status;
}

int cmd_read(const Argv& argv) {
  Args a(argv, {"offset", "length"}, {"run", "force-dirty-degraded"});
  auto offset = a.size("offset");
  auto length = a.size("length");
  if (!offset) throw UsageError("missing required option --offset");
  if (!length) throw UsageError("missing required option --length");
  auto arr = open_or_throw(a.positional(), reading(a), "read");
  if (*offset > arr->size_bytes() || *length > arr->size_bytes() - *offset)
    throw UsageError("reading " + std::to_string(*length) + " bytes at offset " + std::to_string(*offset) +
                     " runs past the end of the array (" + std::to_string(arr->size_bytes()) + " bytes)");
  MemberFailures failures(arr.array(), arr.session);
  raid::SyncIo sio(arr.array());
  std::vector<uint8_t> piece(kStreamPiece);
  for (uint64_t done = 0; done < *length && !interrupted_signal();) {
    const size_t n = size_t(std::min<uint64_t>(piece.size(), *length - done));
    check(sio.read(*offset + done, piece.data(), n));
    if (std::fwrite(piece.data(), 1, n, stdout) != n) {
      // The reader of standard output went away (`read ... | head`): as
      // for any filter, the end, without a word.
      if (interrupted_signal() == SIGPIPE) return 128 + SIGPIPE;
      throw RuntimeError("writing to standard output failed");
    }
    done += n;
  }
  if (int sig = interrupted_signal()) throw Interrupted(sig, "interrupted");
  return failures.print();
}

int cmd_fail(const Argv& argv) {
  Args a(argv, {"member"}, {"run", "force", "force-dirty-degraded"});
  const std::string target = a.required("member");
  std::vector<std::string> members = a.positional();
  if (std::find(members.begin(), members.end(), target) == members.end()) members.push_back(target);
  auto arr = open_or_throw(members, writable(a), "fail");
  const int slot = arr->slot_of(target);
  if (slot < 0) throw RuntimeError(target + " is not an active member of this array");
  check(arr.session->fail_member(slot, "failed by the administrator").wait());
  close_or_throw(arr);
  std::printf("%s (role %d) marked faulty; array is %s\n", target.c_str(), slot,
              arr.session->status().state.c_str());
  return 0;
}

// add --member=A [--member=B]: several targets are rebuilt by one task in
// one pass (RAID6's two missing members, as md recovers both spares at once).
int cmd_add(const Argv& argv) {
  Args a(argv, {"member", "create-files"}, {"force", "run", "force-dirty-degraded"}, {"member"});
  std::vector<std::string> targets = a.values("member");
  if (targets.empty()) throw UsageError("missing required option --member");
  std::vector<std::string> members = a.positional();
  for (const std::string& t : targets)
    members.erase(std::remove(members.begin(), members.end(), t), members.end());
  if (a.value("create-files")) refuse_unknown_existing_files(targets);
  raid::AssembleOptions o = writable(a);
  o.resume_members = targets;
  auto arr = open_or_throw(members, o, "add");
  std::vector<std::string> todo;  // those not complete already
  for (const std::string& target : targets) {
    const int slot = arr->slot_of(target);
    if (slot < 0) {
      todo.push_back(target);
      continue;
    }
    const raid::MemberState state = (*arr->table())[slot].state;
    if (state != raid::MemberState::recovering) {
      std::printf("%s is already a complete member (role %d, %s); nothing to rebuild%s\n", target.c_str(),
                  slot, raid::member_state_name(state),
                  targets.size() == 1 ? ("; array is " + arr->state_text()).c_str() : "");
      continue;
    }
    todo.push_back(target);
    std::fprintf(
        stderr, "raidscope-cli: resuming the interrupted rebuild of %s at %.1f%%\n", target.c_str(),
        100.0 * double(arr->runtime(slot).recovery_offset.load()) / double(arr->shape().dev_sectors));
  }
  if (todo.empty()) {
    if (targets.size() > 1) std::printf("array is %s\n", arr->state_text().c_str());
    return 0;
  }
  MemberFailures failures(arr.array(), arr.session, false);
  raid::AddOptions ao;
  ao.force = a.flag("force");
  ao.create_files_bytes = a.size("create-files").value_or(0);
  std::string names;
  for (const std::string& t : todo) names += (names.empty() ? "" : " and ") + t;
  auto task = check(arr.session->add_members(todo, ao).wait());
  task_outcome(arr, wait_for_task(task, "rebuild " + names));
  warn_unprotected_members(arr.array(), "add");
  std::vector<int> slots;
  for (const std::string& t : todo) slots.push_back(arr->slot_of(t));
  close_or_throw(arr);
  const int status = failures.print();
  const std::string state = arr.session->status().state;
  if (todo.size() == 1) {
    std::printf("%s added as role %d and rebuilt; array is %s\n", todo[0].c_str(), slots[0], state.c_str());
    return status;
  }
  for (size_t i = 0; i < todo.size(); ++i) std::printf("%s added as role %d\n", todo[i].c_str(), slots[i]);
  std::printf("%s rebuilt in one pass; array is %s\n", names.c_str(), state.c_str());
  return status;
}

int cmd_check(const Argv& argv, bool repair) {
  Args a(argv, {}, {"run", "force", "force-dirty-degraded"});
  auto arr = open_or_throw(a.positional(), writable(a), repair ? "repair" : "check");
  // Nothing to compare a block with: say so, never "mismatches: 0".
  if (Status can = arr->can_compare(repair); !can) {
    std::fprintf(stderr, "raidscope-cli %s: %s\n", repair ? "repair" : "check", can.error().message.c_str());
    return kExitNoRedundancy;
  }
  MemberFailures failures(arr.array(), arr.session);
  // A resync started by the assemble (unclean stop) runs first: a check
  // over copies being made equal would count its work as mismatches.
  if (auto resync = arr->resync_task()) task_outcome(arr, wait_for_task(resync, "resync"));
  auto task = check(arr.session->check(repair).wait());
  task_outcome(arr, wait_for_task(task, repair ? "repair" : "check"));
  const uint64_t mismatches = arr->mismatch_cnt();
  const std::string findings = arr->check_findings(repair);  // RAID6: which of P and Q was wrong
  close_or_throw(arr);
  const int status = failures.print();
  std::printf("mismatches: %llu\n", static_cast<unsigned long long>(mismatches));
  if (!findings.empty()) std::printf("%s\n", findings.c_str());
  return status;
}

}  // namespace rs::cli
