// Hot-plug: block devices appearing, going, and loop devices being attached
// and detached, as events delivered on the caller's I/O context.
//
// Events come from a libudev monitor. Where udevd runs, the "udev" source
// (events after udev's rules ran, device nodes in place); where it does not
// (containers, these CI machines: no /run/udev/control) the "kernel" source,
// the raw uevents. Each uevent only says "something about sdb changed": the
// monitor re-reads the device from sysfs and compares it with what it last
// saw, so a loop device's attach (a "change" uevent on an existing loop0)
// becomes `attached`, and repeated change uevents that alter nothing are
// dropped.
//
// Threading: a monitor thread waits on the netlink socket and hands each
// event to `post`, which is expected to queue it on an I/O context (pass
// [&ctx](auto fn) { ctx.post(std::move(fn)); }); the handler then runs on
// that context's thread. The destructor stops and joins the thread; events
// already posted stay queued on the context.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "discovery/block_devices.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

enum class HotplugKind { added, removed, attached, detached, changed };
const char* hotplug_kind_name(HotplugKind k);  // "added", "removed", "attached", "detached", "changed"

struct HotplugEvent {
  HotplugKind kind = HotplugKind::changed;
  std::string name;                   // "loop3", "sdb1"
  std::optional<BlockDevice> device;  // as sysfs shows it now (not for removed; contents not probed)
};

enum class UeventSource { udev, kernel };
const char* uevent_source_name(UeventSource s);  // "udev", "kernel"

// "udev" when udevd runs (its control socket <run>/udev/control exists), "kernel" otherwise.
UeventSource preferred_uevent_source(const std::string& run_dir = "/run");

class HotplugMonitor {
 public:
  using Post = std::function<void(std::function<void()>)>;
  using Handler = std::function<void(const HotplugEvent&)>;

  // Opens the monitor (preferred_uevent_source()), takes a snapshot of the
  // devices present, and starts the thread. Errors: the netlink socket
  // cannot be opened (io_error, with the reason).
  static Result<std::unique_ptr<HotplugMonitor>> start(Post post, Handler handler, const SystemRoots& roots = {});
  ~HotplugMonitor();
  HotplugMonitor(const HotplugMonitor&) = delete;
  HotplugMonitor& operator=(const HotplugMonitor&) = delete;

  UeventSource source() const;

  struct Impl;

 private:
  explicit HotplugMonitor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// What one uevent means, given what was seen of the device before
// (`before`, nullopt when it was not known) and now (`now`, nullopt when it
// is gone): nullopt when nothing a user would care about changed. Pure, so
// it is tested without netlink.
std::optional<HotplugKind> classify_change(const std::optional<BlockDevice>& before,
                                           const std::optional<BlockDevice>& now);

}  // namespace rs::discovery
