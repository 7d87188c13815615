// A RAID5 tunable change takes effect at once, on the stripes already
// waiting: lowering preread_bypass_threshold below the count of full-stripe
// writes that passed a stripe waiting for its pre-reads hands that stripe
// to raid5d there and then, with no new write to trigger a pass (md reads
// conf->bypass_threshold on every __get_priority_stripe; here the change
// runs a pass of its own).
#include <catch2/catch.hpp>
#include <cstring>

#include "raid/array_port.hpp"
#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5;
using namespace rs::raid5::test;

namespace {

// Holds every member I/O queued while closed (as if the disks were slow);
// open() lets them through. Single-threaded, as every backend.
class GateBackend final : public io::Backend {
 public:
  explicit GateBackend(std::unique_ptr<io::Backend> inner) : inner_(std::move(inner)) {}
  void open() {
    open_ = true;
    for (io::MemberIo* io : held_) inner_->queue(*io);
    held_.clear();
    inner_->submit();
  }
  size_t held() const { return held_.size(); }

  void queue(io::MemberIo& io) override {
    if (open_)
      inner_->queue(io);
    else
      held_.push_back(&io);
  }
  void submit() override {
    if (open_) inner_->submit();
  }
  void queue_timer(io::MemberIo& io, uint64_t delay_ns) override { inner_->queue_timer(io, delay_ns); }
  unsigned reap(unsigned min_complete) override { return inner_->reap(open_ ? min_complete : 0); }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override {
    return inner_->reap_until(open_ ? min_complete : 0, deadline_ns);
  }
  void replace_member(int index, io::MemberDevice* dev) override { inner_->replace_member(index, dev); }
  uint64_t now_ns() override { return inner_->now_ns(); }
  uint64_t batch_now_ns() override { return inner_->batch_now_ns(); }
  unsigned in_flight() const override { return inner_->in_flight() + unsigned(held_.size()); }
  bool arm_wakeup(int) override { return false; }  // the test turns the context itself
  bool virtual_time() const override { return inner_->virtual_time(); }
  std::string describe() const override { return "gate(" + inner_->describe() + ")"; }

 private:
  std::unique_ptr<io::Backend> inner_;
  std::vector<io::MemberIo*> held_;
  bool open_ = false;
};

double raid5_value(raid::Array& arr, const std::string& name) {
  std::vector<telemetry::Section> sections;
  personality(arr).read_sections(sections);
  for (const auto& s : sections)
    for (const auto& [key, value] : s.values)
      if (s.name == "raid5" && key == name) return value;
  FAIL("no raid5 value " << name);
  return -1;
}

struct Write {
  OwnedIo o;
  Completion c;
  Write(TestPort& tp, uint64_t offset, const std::vector<uint8_t>& data) : o(tp, uint32_t(data.size())) {
    std::memcpy(o.buf.data(), data.data(), data.size());
    o.io.write = true;
    o.io.offset = offset;
    o.io.length = uint32_t(data.size());
    o.io.buffer = o.buf.data();
    o.io.done = completion_done;
    o.io.owner = &c;
    tp.port().submit(o.io);
  }
};

// Turns the port's context (completing nothing the gate holds) until
// `done` holds: the array's first write waits for its superblock to be
// marked active on the metadata thread. At most 10 s.
template <class Pred>
bool settle_until(TestPort& tp, Pred done) {
  const uint64_t until = tp.backend().now_ns() + 10'000'000'000ull;
  while (!done()) {
    if (tp.backend().now_ns() >= until) return false;
    tp.context().run_once(1, tp.backend().now_ns() + 1'000'000);
  }
  return true;
}

}  // namespace

TEST_CASE("raid5: lowering preread_bypass_threshold takes the waiting pre-read stripe at once, no new write",
          "[raid5][scheduler][tunables]") {
  TempDir dir;
  auto arr = create_raid5({3, 2}, member_paths(dir, 3));
  REQUIRE(arr->tunables().set("stripe_scheduling", "priority").ok());
  REQUIRE(arr->tunables().set("preread_bypass_threshold", "100").ok());
  auto gated = std::make_unique<GateBackend>(arr->make_backend(8));
  GateBackend& gate = *gated;
  TestPort tp(*arr, std::move(gated));
  std::mt19937_64 rng(3);
  const uint32_t row =
      2 * kChunkBytes;  // a full chunk row of a 3-member RAID5: every stripe in it fully written
  const auto full1 = random_bytes(rng, row), small = random_bytes(rng, 4096), full2 = random_bytes(rng, row);

  // Full-stripe writes in flight (held at the disks), then a 4 KiB write
  // that needs pre-reads: it waits on hold_list while full writes are
  // pending, and the later full writes pass it (bypass_count grows).
  Write w1(tp, 0, full1);
  REQUIRE(settle_until(tp, [&] { return gate.held() > 0; }));
  Write w2(tp, 1 << 20, small);
  REQUIRE(settle_until(tp, [&] { return raid5_value(*arr, "hold") == 1; }));
  const size_t w1_held = gate.held();
  Write w3(tp, 2 << 20, full2);
  REQUIRE(settle_until(tp, [&] { return gate.held() > w1_held; }));
  REQUIRE(raid5_value(*arr, "hold") == 1);
  const double passed = raid5_value(*arr, "bypass_count");
  REQUIRE(passed > 1);
  REQUIRE(passed <= 100);  // not enough to pass the threshold of 100: it keeps waiting
  const size_t held = gate.held();

  // The change alone takes it: bypass_count > 1 now lets it go first.
  REQUIRE(arr->tunables().set("preread_bypass_threshold", "1").ok());
  CHECK(raid5_value(*arr, "hold") == 0);
  CHECK(settle_until(tp, [&] { return gate.held() > held; }));  // its pre-reads went to the disks
  CHECK_FALSE(w2.c.done);

  gate.open();
  while (!(w1.c.done && w2.c.done && w3.c.done)) tp.turn();
  CHECK(w1.c.result == int(row));
  CHECK(w2.c.result == 4096);
  CHECK(w3.c.result == int(row));
  std::vector<uint8_t> back(4096);
  REQUIRE(array_read(*arr, 1 << 20, back.data(), back.size()).ok());
  CHECK(first_diff(back, small) == -1);
}
