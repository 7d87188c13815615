// The simulator backend: virtual time, completion order, think time, bytes
// kept in memory, and several loops sharing one backend.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "io/device_profile.hpp"
#include "io/memory_store.hpp"
#include "io/sim_backend.hpp"
#include "sim_driver.hpp"

using namespace rs::io;
using rs::io::test::ClosedLoop;
using rs::io::test::LoopSpec;

namespace {

// Completes every I/O a fixed time after it is scheduled and records what
// the backend tells it.
class FixedModel final : public DeviceModel {
 public:
  explicit FixedModel(uint64_t latency_ns) : latency_(latency_ns) {}
  uint64_t schedule(uint64_t now_ns, bool, uint64_t, uint32_t) override { return now_ns + latency_; }
  void complete(uint64_t offset, uint32_t length) override { completed.push_back({offset, length}); }
  bool rotational() const override { return false; }
  uint32_t io_opt() const override { return 0; }
  uint32_t logical_block_size() const override { return 512; }
  std::vector<std::pair<uint64_t, uint32_t>> completed;

 private:
  uint64_t latency_;
};

struct Record {
  SimBackend* be = nullptr;
  std::vector<std::pair<uint64_t, int>> done;  // (tag, result)
  std::vector<uint64_t> at;                    // now_ns() seen by the callback
};

void record_done(MemberIo& io, int result) {
  auto* r = static_cast<Record*>(io.owner);
  r->done.push_back({io.tag, result});
  r->at.push_back(r->be->now_ns());
}

MemberIo make_io(Record& r, int member, uint64_t tag, uint64_t offset = 0, uint32_t length = 4096) {
  MemberIo io;
  io.member = member;
  io.offset = offset;
  io.length = length;
  io.done = &record_done;
  io.owner = &r;
  io.tag = tag;
  return io;
}

}  // namespace

TEST_CASE("sim backend: virtual time starts at 0 and moves with completions", "[sim]") {
  FixedModel m(1000);
  DeviceModel* members[] = {&m};
  SimBackend be(members);
  Record r{&be};
  CHECK(be.now_ns() == 0);
  CHECK(be.describe().find("sim") != std::string::npos);
  CHECK(be.next_completion_ns() == UINT64_MAX);

  MemberIo a = make_io(r, 0, 1, 4096, 8192);
  be.queue(a);
  be.submit();
  CHECK(a.due_ns == 1000);
  CHECK(be.in_flight() == 1);
  CHECK(be.next_completion_ns() == 1000);
  CHECK(be.reap(0) == 0);  // nothing due yet: time stands still
  CHECK(be.now_ns() == 0);
  CHECK(be.reap(1) == 1);
  CHECK(be.now_ns() == 1000);
  CHECK(be.in_flight() == 0);
  REQUIRE(r.done.size() == 1);
  CHECK(r.done[0] == std::pair<uint64_t, int>{1, 8192});
  CHECK(r.at[0] == 1000);
  REQUIRE(m.completed.size() == 1);
  CHECK(m.completed[0] == std::pair<uint64_t, uint32_t>{4096, 8192});
  CHECK(be.reap(5) == 0);  // nothing in flight: returns rather than hang
}

TEST_CASE("sim backend: completions run in time order, ties in queue order", "[sim]") {
  FixedModel fast(100), slow(500);
  DeviceModel* members[] = {&slow, &fast};
  SimBackend be(members);
  Record r{&be};
  std::vector<MemberIo> ios;
  ios.reserve(5);
  ios.push_back(make_io(r, 0, 10));  // due 500
  ios.push_back(make_io(r, 1, 11));  // due 100
  ios.push_back(make_io(r, 0, 12));  // due 500
  ios.push_back(make_io(r, 1, 13));  // due 100
  ios.push_back(make_io(r, 0, 14));  // due 500
  for (auto& io : ios) be.queue(io);
  // reap(1) runs the first due and everything due at that same instant.
  CHECK(be.reap(1) == 2);
  CHECK(be.now_ns() == 100);
  CHECK(be.reap(1) == 3);
  CHECK(be.now_ns() == 500);
  std::vector<uint64_t> order;
  for (auto& d : r.done) order.push_back(d.first);
  CHECK(order == std::vector<uint64_t>{11, 13, 10, 12, 14});
  CHECK(r.at == std::vector<uint64_t>{100, 100, 500, 500, 500});
}

TEST_CASE("sim backend: advance_to lets think time pass", "[sim]") {
  FixedModel m(1000);
  DeviceModel* members[] = {&m};
  SimBackend be(members);
  Record r{&be};
  MemberIo a = make_io(r, 0, 1);
  be.queue(a);
  CHECK(be.advance_to(500) == 0);
  CHECK(be.now_ns() == 500);
  MemberIo b = make_io(r, 0, 2);  // queued at 500, due 1500
  be.queue(b);
  CHECK(b.due_ns == 1500);
  // Passing both: each runs at its own time, then the clock rests at 3000.
  CHECK(be.advance_to(3000) == 2);
  CHECK(r.at == std::vector<uint64_t>{1000, 1500});
  CHECK(be.now_ns() == 3000);
  CHECK(be.advance_to(10) == 0);  // never backwards
  CHECK(be.now_ns() == 3000);
}

TEST_CASE("sim backend: a missing member fails with -ENODEV at the next reap", "[sim]") {
  FixedModel m(1000);
  DeviceModel* members[] = {&m, nullptr};
  SimBackend be(members);
  Record r{&be};
  MemberIo a = make_io(r, 1, 1), b = make_io(r, 7, 2), c = make_io(r, -1, 3);
  be.queue(a);
  be.queue(b);
  be.queue(c);
  CHECK(r.done.empty());  // never inline
  CHECK(be.reap(0) == 3);
  CHECK(be.now_ns() == 0);
  for (auto& d : r.done) CHECK(d.second == -ENODEV);
  CHECK(m.completed.empty());
}

TEST_CASE("sim backend: bytes round-trip through the memory store", "[sim][store]") {
  FixedModel m0(1000), m1(2000);
  DeviceModel* members[] = {&m0, &m1};
  MemoryStore store;
  SimBackend be(members, &store);
  CHECK(be.describe().find("memory") != std::string::npos);
  Record r{&be};

  std::vector<uint8_t> pattern(10000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t(i * 7 + 3);
  MemberIo w = make_io(r, 1, 1, 8192 + 100, uint32_t(pattern.size()));
  w.write = true;
  w.buffer = pattern.data();
  be.queue(w);
  be.reap(1);
  CHECK(store.pages() == 3);  // bytes 8292..18291 touch pages 2, 3 and 4

  std::vector<uint8_t> back(16384, 0xff);
  MemberIo rd = make_io(r, 1, 2, 8192, uint32_t(back.size()));
  rd.buffer = back.data();
  be.queue(rd);
  be.reap(1);
  for (size_t i = 0; i < 100; ++i) CHECK(back[i] == 0);  // never written
  CHECK(std::memcmp(back.data() + 100, pattern.data(), pattern.size()) == 0);
  CHECK(std::count(back.begin() + 100 + long(pattern.size()), back.end(), 0) ==
        long(back.size() - 100 - pattern.size()));

  // The other member has its own bytes.
  std::vector<uint8_t> other(4096, 0xff);
  MemberIo ro = make_io(r, 0, 3, 8192, 4096);
  ro.buffer = other.data();
  be.queue(ro);
  be.reap(1);
  CHECK(std::count(other.begin(), other.end(), 0) == 4096);

  // No buffer, no store: still completes, moves no bytes.
  MemberIo nb = make_io(r, 0, 4);
  nb.write = true;
  be.queue(nb);
  CHECK(be.reap(1) == 1);
  CHECK(store.pages() == 3);
}

TEST_CASE("memory store: sparse pages, partial pages, zeros where unwritten", "[store]") {
  MemoryStore s;
  const char msg[] = "raidscope";
  s.write(2, 4090, msg, sizeof msg);  // straddles pages 0 and 1
  CHECK(s.pages() == 2);
  char out[16] = {};
  s.read(2, 4090, out, sizeof msg);
  CHECK(std::string(out) == "raidscope");
  s.read(0, 4090, out, sizeof msg);  // another member: zeros
  CHECK(out[0] == 0);
  uint8_t big[3 * 4096];
  std::memset(big, 0xaa, sizeof big);
  s.read(2, 1ull << 40, big, sizeof big);  // far away, never written
  CHECK(std::count(big, big + sizeof big, 0) == int(sizeof big));
  s.clear();
  CHECK(s.pages() == 0);
}

TEST_CASE("sim backend: several loops share one backend on one thread", "[sim]") {
  std::string err;
  auto prof = find_profile("nvme-gm9000", {std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/profiles"});
  INFO(rs::test::error_text(prof));
  REQUIRE(prof);
  auto run = [&] {
    auto a = rs::test::must(make_model(*prof)), b = rs::test::must(make_model(*prof));
    DeviceModel* members[] = {a.get(), b.get()};
    SimBackend be(members);
    ClosedLoop j1(
        be, {.bs = 4096, .random = true, .qd = 8, .ios = 20000, .member = 0, .members = 2, .seed = 1}, true);
    ClosedLoop j2(be, {.bs = 65536, .random = true, .qd = 4, .ios = 5000, .member = 1, .seed = 2}, true);
    j1.start();
    j2.start();
    // A driver loop: reap, and give job 2 a think time now and then.
    uint64_t next_think = 100'000;
    while (be.in_flight()) {
      if (be.next_completion_ns() > next_think) {
        be.advance_to(next_think);
        next_think += 100'000;
      }
      be.reap(1);
    }
    CHECK(j1.finished());
    CHECK(j2.finished());
    std::vector<uint64_t> all = j1.result().completions;
    all.insert(all.end(), j2.result().completions.begin(), j2.result().completions.end());
    return all;
  };
  const auto first = run();
  CHECK(first.size() == 25000);
  CHECK(first == run());  // deterministic
}

TEST_CASE("sim backend: callback time is monotonic across a long run", "[sim]") {
  auto prof = find_profile("hdd-hdwg740", {std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/profiles"});
  REQUIRE(prof);
  auto m = rs::test::must(make_model(*prof));
  DeviceModel* members[] = {m.get()};
  SimBackend be(members, nullptr, 4);  // grows past the reservation if it must
  auto r =
      ClosedLoop::run(be, {.bs = 65536, .random = true, .span = 1ull << 40, .qd = 32, .ios = 5000}, true);
  CHECK(std::is_sorted(r.completions.begin(), r.completions.end()));
  CHECK(r.completions.back() == be.now_ns());
}

TEST_CASE("sim backend: a timer fires at its virtual time with -EAGAIN, the model untouched", "[sim]") {
  FixedModel m(1000);
  DeviceModel* members[] = {&m};
  SimBackend be(members);
  Record r{&be};
  MemberIo t = make_io(r, 0, 7, 0, 4096);
  be.queue_timer(t, 500);
  MemberIo a = make_io(r, 0, 1, 4096, 4096);
  be.queue(a);
  CHECK(be.in_flight() == 2);
  CHECK(be.reap(1) == 1);
  CHECK(be.now_ns() == 500);
  REQUIRE(r.done.size() == 1);
  CHECK(r.done[0] == std::pair<uint64_t, int>{7, -EAGAIN});
  CHECK(m.completed.empty());  // the timer is not an I/O of the disk
  CHECK(be.reap(1) == 1);
  CHECK(be.now_ns() == 1000);
  CHECK(m.completed.size() == 1);
}
