// An array port whose context's ring fails: its requests fail with the
// ring's errno, no member is failed for it (the disks are fine), the array
// records the failure as an event (and a write that may have reached some
// members only as "needs resync"), and every other port keeps working.
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>

#include "io/ring_fault_backend.hpp"
#include "raid/array_port.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

bool has_event(Array& arr, const std::string& kind, const std::string& value, const std::string& text) {
  for (const auto& e : arr.events().since(0))
    if (e.kind == kind && e.value == value && e.message.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("array: a port whose ring fails fails its I/O with the errno, members and other ports untouched",
          "[raid][ring]") {
  const Config c = GENERATE(Config{"raid1 x2", 1, 2, ""}, Config{"raid5 x3", 5, 3, ""});
  INFO(c.name);
  TempDir dir;
  auto arr = create_array(c, member_paths(dir, c.disks));
  std::mt19937_64 rng(5);
  const auto before = random_bytes(rng, 64 * 1024);
  REQUIRE(array_write(*arr, 0, before.data(), before.size()).ok());

  auto wrapped = std::make_unique<io::RingFaultBackend>(arr->make_backend(8));
  io::RingFaultBackend& fault = *wrapped;
  TestPort tp(*arr, std::move(wrapped));
  auto data = random_bytes(rng, 64 * 1024);
  REQUIRE(submit_rw(tp, true, 128 * 1024, data.data(), 64 * 1024) == 64 * 1024);

  // The ring fails at the next submit: the write on it fails with the errno.
  fault.fail_after_submits(1, EOWNERDEAD);
  auto lost = random_bytes(rng, 64 * 1024);
  CHECK(submit_rw(tp, true, 256 * 1024, lost.data(), 64 * 1024) == -EOWNERDEAD);
  // And so does everything after it, before reaching a member.
  std::vector<uint8_t> back(64 * 1024);
  CHECK(submit_rw(tp, false, 0, back.data(), 64 * 1024) == -EOWNERDEAD);
  CHECK(submit_rw(tp, true, 0, lost.data(), 64 * 1024) == -EOWNERDEAD);

  for (int slot = 0; slot < c.disks; ++slot) CHECK(state(*arr, slot) == MemberState::in_sync);
  CHECK(has_event(*arr, "context", "failed", std::strerror(EOWNERDEAD)));
  CHECK(has_event(*arr, "array", "needs resync", "ring failed"));

  // Another context reads what was there before: nothing of the refused
  // write at offset 0 reached a member.
  REQUIRE(array_read(*arr, 0, back.data(), back.size()).ok());
  CHECK(first_diff(back, before) == -1);
  REQUIRE(array_read(*arr, 128 * 1024, back.data(), back.size()).ok());
  CHECK(first_diff(back, data) == -1);
}
