// devices: the block devices an array could be made of, with size,
// rotational, io_opt, md membership and whether (and why) each is unsafe to
// write. --watch then prints hot-plug events until Ctrl-C.
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "args.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "discovery/block_devices.hpp"
#include "discovery/hotplug.hpp"
#include "discovery/open_by.hpp"
#include "discovery/privileges.hpp"
#include "discovery/safety.hpp"
#include "io/context.hpp"
#include "io/uring_backend.hpp"

namespace rs::cli {

namespace {

using discovery::Assessment;
using discovery::BlockDevice;

std::string human_size(uint64_t bytes) {
  const char* units = "BKMGTPE";
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f%c" : "%.0f%c", v, units[u]);
  return buf;
}

discovery::Identity identity_of(const BlockDevice& d) {
  discovery::Identity id;
  id.kind = discovery::Identity::Kind::block_device;
  id.path = d.node;
  id.rdev = d.rdev;
  id.loop = d.loop;
  return id;
}

// "free", "needs --force", "refused": what create/add would do with it.
const char* verdict(const Assessment& a) {
  return a.safe() ? "free" : a.refused() ? "refused" : "needs --force";
}

const char* verdict_key(const Assessment& a) {
  return a.safe() ? "free" : a.refused() ? "refused" : "needs_force";
}

std::string md_text(const BlockDevice& d) {
  if (!d.md) return "-";
  if (d.md->damaged) return "damaged";
  return d.md->level + " " + d.md->role;
}

nlohmann::ordered_json to_json(const BlockDevice& d, const Assessment& a) {
  nlohmann::ordered_json j;
  j["name"] = d.name;
  j["path"] = d.node;
  j["kind"] = discovery::device_kind_name(d.kind);
  j["parent"] = d.parent.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(d.parent);
  j["size_bytes"] = d.size_bytes;
  // What the engine's policies see: for a loop device, its backing storage's.
  j["rotational"] = d.effective.rotational;
  j["io_opt"] = d.effective.io_opt;
  j["device_rotational"] = d.queue.rotational;
  j["device_io_opt"] = d.queue.io_opt;
  j["logical_block_size"] = d.queue.logical_block_size;
  j["physical_block_size"] = d.queue.physical_block_size;
  j["model"] = d.model;
  j["serial"] = d.serial;
  j["removable"] = d.removable;
  j["read_only"] = d.read_only;
  j["partitions"] = d.partitions;
  j["holders"] = d.holders;
  j["mountpoints"] = d.usage.mountpoints;
  j["loop_backing"] = d.loop ? nlohmann::ordered_json(d.loop->path) : nlohmann::ordered_json();
  if (d.kind == discovery::DeviceKind::device_mapper) j["dm_name"] = d.dm_name;
  if (d.md) {
    nlohmann::ordered_json m;
    m["array_uuid"] = d.md->array_uuid;
    m["array_name"] = d.md->array_name;
    m["level"] = d.md->level;
    m["role"] = d.md->role;
    m["damaged"] = d.md->damaged;
    j["md"] = m;
  } else {
    j["md"] = nullptr;
  }
  j["signature"] = d.signature;
  j["status"] = verdict_key(a);
  nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
  for (const auto& h : a.hazards) reasons.push_back({{"reason", h.reason}, {"overridable", h.overridable}});
  j["reasons"] = reasons;
  return j;
}

void print_table(const std::vector<BlockDevice>& list, const std::vector<Assessment>& verdicts) {
  std::printf("%-12s %-9s %8s %3s %7s %-26s %s\n", "NAME", "KIND", "SIZE", "ROT", "IO_OPT", "MD", "STATUS");
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& d = list[i];
    const auto& a = verdicts[i];
    std::string status = verdict(a);
    if (!a.safe()) status += ": " + a.summary();
    const std::string name = (d.parent.empty() ? "" : "  ") + d.name;
    std::printf("%-12s %-9s %8s %3d %7s %-26s %s\n", name.c_str(), discovery::device_kind_name(d.kind),
                human_size(d.size_bytes).c_str(), d.effective.rotational ? 1 : 0,
                d.effective.io_opt ? human_size(d.effective.io_opt).c_str() : "0", md_text(d).c_str(),
                status.c_str());
    if (d.loop) std::printf("%-12s over %s\n", "", d.loop->path.c_str());
  }
}

// Delivers posted closures on this thread: through an io_uring IoContext
// when the kernel allows io_uring, through a plain queue otherwise.
class EventLoop {
 public:
  EventLoop() {
    // io_uring disabled: the plain queue below.
    if (auto uring = io::UringBackend::create({}, 8))
      ctx_ = std::make_unique<io::IoContext>(std::move(*uring), "hotplug");
  }
  void post(std::function<void()> fn) {
    if (ctx_) return ctx_->post(std::move(fn));
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(fn));
    cv_.notify_one();
  }
  // Runs what arrived within ~200 ms.
  void turn() {
    if (ctx_) {
      ctx_->run_once(1, ctx_->backend().now_ns() + 200'000'000);
      return;
    }
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::milliseconds(200), [&] { return !queue_.empty(); });
    auto work = std::move(queue_);
    queue_.clear();
    lock.unlock();
    for (auto& fn : work) fn();
  }

 private:
  std::unique_ptr<io::IoContext> ctx_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
};

int watch(bool json) {
  EventLoop loop;
  auto monitor = check(discovery::HotplugMonitor::start(
      [&loop](std::function<void()> fn) { loop.post(std::move(fn)); },
      [json](const discovery::HotplugEvent& ev) {
        if (json) {
          nlohmann::ordered_json j;
          j["event"] = discovery::hotplug_kind_name(ev.kind);
          j["name"] = ev.name;
          if (ev.device) {
            j["size_bytes"] = ev.device->size_bytes;
            j["rotational"] = ev.device->effective.rotational;
            j["loop_backing"] =
                ev.device->loop ? nlohmann::ordered_json(ev.device->loop->path) : nlohmann::ordered_json();
          }
          std::cout << j.dump() << std::endl;
        } else {
          std::string line = std::string(discovery::hotplug_kind_name(ev.kind)) + " " + ev.name;
          if (ev.device) line += " " + human_size(ev.device->size_bytes);
          if (ev.device && ev.device->loop) line += " over " + ev.device->loop->path;
          std::cout << line << std::endl;
        }
      }));
  std::fprintf(stderr, "watching block devices (%s uevents); Ctrl-C stops\n",
               discovery::uevent_source_name(monitor->source()));
  while (!interrupted_signal()) loop.turn();
  return 0;
}

}  // namespace

int cmd_devices(const Argv& argv) {
  Args a(argv, {}, {"json", "all", "watch"});
  if (!a.positional().empty())
    throw UsageError("devices takes no device arguments, got '" + a.positional().front() + "'");
  discovery::ScanOptions opt;
  opt.include_empty = a.flag("all");
  const auto list = discovery::scan_block_devices({}, opt);
  std::vector<Assessment> verdicts;
  for (const auto& d : list)
    verdicts.push_back(discovery::assess(d, discovery::processes_with_open(identity_of(d))));

  if (a.flag("json")) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (size_t i = 0; i < list.size(); ++i) j.push_back(to_json(list[i], verdicts[i]));
    // With --watch every line is one JSON document: the listing, then one per event.
    std::cout << (a.flag("watch") ? j.dump() : j.dump(2)) << std::endl;
  } else {
    print_table(list, verdicts);
  }
  if (!discovery::can_see_other_processes())
    std::fprintf(stderr, "note: %s\n", discovery::limited_view_note().c_str());
  if (a.flag("watch")) return watch(a.flag("json"));
  return 0;
}

}  // namespace rs::cli
