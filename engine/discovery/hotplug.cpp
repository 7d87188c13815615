#include "discovery/hotplug.hpp"

#include <libudev.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "base/unique_fd.hpp"

namespace rs::discovery {

const char* hotplug_kind_name(HotplugKind k) {
  switch (k) {
    case HotplugKind::added:
      return "added";
    case HotplugKind::removed:
      return "removed";
    case HotplugKind::attached:
      return "attached";
    case HotplugKind::detached:
      return "detached";
    case HotplugKind::changed:
      return "changed";
  }
  return "?";
}

const char* uevent_source_name(UeventSource s) {
  return s == UeventSource::udev ? "udev" : "kernel";
}

UeventSource preferred_uevent_source(const std::string& run_dir) {
  std::error_code ec;
  return std::filesystem::exists(run_dir + "/udev/control", ec) ? UeventSource::udev : UeventSource::kernel;
}

namespace {

// A loop device counts as present only while bound and sized: the kernel
// keeps loop0..7 around empty, and "attached" is what a user did. While
// LOOP_CONFIGURE runs, the backing-file attributes appear before the
// capacity is set; a uevent read in between (a late "add" from
// loop-control) would otherwise report an attach of 0 bytes. The kernel
// sends a "change" once the device is sized, and that one is the attach.
bool present(const std::optional<BlockDevice>& d) {
  return d && (d->kind != DeviceKind::loop || (d->loop && d->size_bytes > 0));
}

}  // namespace

std::optional<HotplugKind> classify_change(const std::optional<BlockDevice>& before,
                                           const std::optional<BlockDevice>& now) {
  const bool was = present(before), is = present(now);
  const bool loop = (now && now->kind == DeviceKind::loop) || (before && before->kind == DeviceKind::loop);
  if (!was && is) return loop && before ? HotplugKind::attached : HotplugKind::added;
  if (was && !is) return loop && now ? HotplugKind::detached : HotplugKind::removed;
  if (!was && !is) return std::nullopt;
  const bool same_backing =
      before->loop.has_value() == now->loop.has_value() &&
      (!before->loop || (before->loop->dev == now->loop->dev && before->loop->ino == now->loop->ino &&
                         before->loop->rdev == now->loop->rdev));
  if (before->size_bytes != now->size_bytes || before->read_only != now->read_only || !same_backing ||
      before->partitions != now->partitions)
    return HotplugKind::changed;
  return std::nullopt;
}

struct HotplugMonitor::Impl {
  SystemRoots roots;
  Post post;
  Handler handler;
  UeventSource source = UeventSource::kernel;
  udev* ctx = nullptr;
  udev_monitor* monitor = nullptr;
  UniqueFd stop_fd;
  std::map<std::string, std::optional<BlockDevice>> seen;  // monitor thread only, after start
  std::thread thread;

  ~Impl() {
    if (thread.joinable()) {
      const uint64_t one = 1;
      [[maybe_unused]] ssize_t n = ::write(stop_fd.get(), &one, sizeof one);
      thread.join();
    }
    if (monitor) udev_monitor_unref(monitor);
    if (ctx) udev_unref(ctx);
  }

  static ScanOptions quick() {
    ScanOptions o;
    o.probe_contents = false;  // sysfs only: no superblock or signature reads from the monitor
    o.include_empty = true;
    return o;
  }

  void snapshot() {
    for (auto& d : scan_block_devices(roots, quick())) seen[d.name] = std::move(d);
  }

  void on_uevent(const std::string& name) {
    std::optional<BlockDevice> now = describe_block_device(name, roots, quick());
    auto& before = seen[name];
    if (auto kind = classify_change(before, now)) {
      HotplugEvent ev;
      ev.kind = *kind;
      ev.name = name;
      if (*kind != HotplugKind::removed) ev.device = now;
      post([h = handler, ev = std::move(ev)] { h(ev); });
    }
    before = std::move(now);
  }

  // Reports what changed while uevents were lost, as if each had arrived.
  void resync() {
    std::set<std::string> names;
    for (const auto& [name, d] : seen) names.insert(name);
    for (const auto& d : scan_block_devices(roots, quick())) names.insert(d.name);
    for (const auto& name : names) on_uevent(name);
  }

  void run() {
    pollfd fds[2] = {{udev_monitor_get_fd(monitor), POLLIN, 0}, {stop_fd.get(), POLLIN, 0}};
    for (;;) {
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents) return;
      if (fds[0].revents & (POLLHUP | POLLNVAL)) return;  // the socket is gone: no more events
      errno = 0;
      udev_device* dev = udev_monitor_receive_device(monitor);
      if (!dev && errno == ENOBUFS) {
        resync();  // the socket overflowed and uevents were lost: compare everything
        continue;
      }
      if (!dev) continue;  // a message for another subsystem, or truncated
      const char* name = udev_device_get_sysname(dev);
      if (name) on_uevent(name);
      udev_device_unref(dev);
    }
  }
};

HotplugMonitor::HotplugMonitor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HotplugMonitor::~HotplugMonitor() = default;

UeventSource HotplugMonitor::source() const {
  return impl_->source;
}

Result<std::unique_ptr<HotplugMonitor>> HotplugMonitor::start(Post post, Handler handler,
                                                              const SystemRoots& roots) {
  auto impl = std::make_unique<Impl>();
  impl->roots = roots;
  impl->post = std::move(post);
  impl->handler = std::move(handler);
  impl->source = preferred_uevent_source();
  impl->ctx = udev_new();
  if (!impl->ctx) return make_error(Errc::io_error, "hot-plug: cannot create a udev context");
  impl->monitor = udev_monitor_new_from_netlink(impl->ctx, uevent_source_name(impl->source));
  if (!impl->monitor)
    return make_error(Errc::io_error, std::string("hot-plug: cannot open the ") +
                                          uevent_source_name(impl->source) +
                                          " uevent socket: " + std::strerror(errno));
  if (udev_monitor_filter_add_match_subsystem_devtype(impl->monitor, "block", nullptr) < 0 ||
      udev_monitor_enable_receiving(impl->monitor) < 0)
    return make_error(Errc::io_error, std::string("hot-plug: cannot listen for block device uevents: ") +
                                          std::strerror(errno));
  // A burst (a disk with many partitions, many loop devices at once) should
  // not overflow the socket; where the size is capped, resync() catches up.
  udev_monitor_set_receive_buffer_size(impl->monitor, 4 << 20);
  impl->stop_fd.reset(::eventfd(0, EFD_CLOEXEC));
  if (!impl->stop_fd)
    return make_error(Errc::io_error, std::string("hot-plug: eventfd: ") + std::strerror(errno));
  // Listening before the snapshot: a device that changes in between is
  // seen twice, never missed.
  impl->snapshot();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<HotplugMonitor>(new HotplugMonitor(std::move(impl)));
}

}  // namespace rs::discovery
