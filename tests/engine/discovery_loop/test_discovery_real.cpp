// Discovery on the real system with real loop devices: the scan lists a
// loop device with its size and the rotational flag of the disk its file
// lives on, and the hot-plug monitor reports a loop device attached and
// detached, delivered on an I/O context's thread. Needs root and loop
// devices (exit 77 otherwise, which CTest shows as skipped).
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <thread>

#include "../discovery/discovery_test_util.hpp"
#include "discovery/block_devices.hpp"
#include "discovery/hotplug.hpp"
#include "discovery/queue_properties.hpp"
#include "discovery/safety.hpp"
#include "discovery/sysfs_attr.hpp"
#include "io/context.hpp"
#include "io/uring_backend.hpp"
#include "loop_test_util.hpp"

using namespace rs;
using namespace rs::discovery;
using namespace rs::discovery::test;

namespace {

std::string name_of(const std::string& node) {
  return node.substr(node.rfind('/') + 1);
}

// The rotational flag of the disk `file` lives on, read straight from
// sysfs here (not through discovery), or -1 when sysfs does not know it.
int rotational_of_disk_under(const std::string& file) {
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  const std::string base =
      "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  for (const char* q : {"/queue/rotational", "/../queue/rotational"}) {
    std::string out;
    if (run("cat " + base + q, &out) && (out == "0" || out == "1")) return out == "1";
  }
  return -1;
}

std::unique_ptr<io::IoContext> uring_context_or_skip() {
  auto backend = io::UringBackend::create({}, 8);
  if (!backend) skip("io_uring is not available here: " + backend.error().message);
  return std::make_unique<io::IoContext>(std::move(*backend), "hotplug-test");
}

}  // namespace

TEST_CASE("scan: a loop device is listed with its size and the backing disk's rotational flag") {
  require_root_and_losetup();
  TempDir dir;
  const auto img = make_file(dir, "scan.img", 24 << 20);
  auto loop = first_loop(img);
  const int disk_rotational = rotational_of_disk_under(img);

  auto d = describe_block_device(name_of(loop->path()));
  REQUIRE(d);
  CHECK(d->kind == DeviceKind::loop);
  CHECK(d->node == loop->path());
  CHECK(d->size_bytes == 24u << 20);
  REQUIRE(d->loop);
  CHECK(d->loop->path == img);
  if (disk_rotational >= 0) CHECK(d->effective.rotational == bool(disk_rotational));
  CHECK(d->probe_error.empty());
  CHECK_FALSE(d->md);
  CHECK(assess(*d).safe());

  bool listed = false;
  for (const auto& e : scan_block_devices())
    if (e.name == d->name) listed = e.size_bytes == d->size_bytes;
  CHECK(listed);
}

TEST_CASE("hot-plug: a loop device attached and detached is reported on the I/O context's thread") {
  require_root_and_losetup();
  auto ctx = uring_context_or_skip();
  TempDir dir;
  const auto img = make_file(dir, "hotplug.img", 8 << 20);

  std::vector<HotplugEvent> events;
  const auto owner = std::this_thread::get_id();
  bool on_owner = true;
  auto mon = HotplugMonitor::start([&ctx](std::function<void()> fn) { ctx->post(std::move(fn)); },
                                   [&](const HotplugEvent& ev) {
                                     on_owner = on_owner && std::this_thread::get_id() == owner;
                                     events.push_back(ev);
                                   });
  REQUIRE(mon.ok());
  INFO("source: " << uevent_source_name((*mon)->source()));

  // Runs the context until `name` got an event of `kind`, or 10 s passed.
  auto wait_for = [&](const std::string& name, HotplugKind kind) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < until) {
      for (const auto& ev : events)
        if (ev.name == name && ev.kind == kind) return &ev;
      ctx->run_once(1, ctx->backend().now_ns() + 100'000'000);
    }
    return static_cast<const HotplugEvent*>(nullptr);
  };

  auto loop = first_loop(img);
  const std::string name = name_of(loop->path());
  const HotplugEvent* attached = wait_for(name, HotplugKind::attached);
  if (!attached) attached = wait_for(name, HotplugKind::added);  // a loop device loop-control just made
  REQUIRE(attached);
  REQUIRE(attached->device);
  REQUIRE(attached->device->loop);
  CHECK(attached->device->loop->path == img);
  CHECK(attached->device->size_bytes == 8u << 20);

  loop.reset();  // losetup -d
  const HotplugEvent* detached = wait_for(name, HotplugKind::detached);
  if (!detached) detached = wait_for(name, HotplugKind::removed);
  CHECK(detached);
  CHECK(on_owner);
}
