// Concurrent choose() on one shared PolicyState (also the TSan target).
#include <catch2/catch.hpp>
#include <thread>

#include "mirrors.hpp"

using namespace rs::balance;
using namespace rs::balance::test;

namespace {

constexpr int kThreads = 8;
constexpr int kCalls = 4000;

// Runs kThreads x kCalls choose() calls; returns how often each mirror won.
std::vector<long> hammer(PolicyId policy, const std::vector<MemberSnapshot>& ms, PolicyState& state,
                         const Tunables& t, uint32_t sectors) {
  std::vector<std::vector<long>> per_thread(kThreads, std::vector<long>(ms.size() + 1, 0));
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      for (int i = 0; i < kCalls; ++i) {
        const Choice c = choose(policy, read_at(uint64_t{sectors} * i, sectors, th), ms, state, t);
        ++per_thread[th][c.index < 0 ? ms.size() : static_cast<size_t>(c.index)];
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<long> total(ms.size() + 1, 0);
  for (const auto& p : per_thread)
    for (size_t i = 0; i < p.size(); ++i) total[i] += p[i];
  return total;
}

}  // namespace

TEST_CASE("concurrent md-rr hands out every start slot exactly once", "[concurrency]") {
  PolicyState state;
  // Idle SSDs whose heads are away from the read: the start slot alone decides.
  std::vector<MemberSnapshot> ms{ssd(0), ssd(1), ssd(2), ssd(3)};
  for (auto& m : ms) m.sector = 1'000'000;
  const auto counts = hammer(PolicyId::MdRr, ms, state, {}, 8);
  const long per_mirror = long{kThreads} * kCalls / 4;
  CHECK(counts == std::vector<long>{per_mirror, per_mirror, per_mirror, per_mirror, 0});
  CHECK(state.read_rr.load() == kThreads * kCalls - 1);
}

TEST_CASE("concurrent btrfs-rr counts every block and request", "[concurrency]") {
  const std::vector<MemberSnapshot> ms{hdd(0), hdd(1), hdd(2)};
  SECTION("per request: an exact round robin") {
    PolicyState state;
    Tunables t;
    t.min_contig_read = 0;
    const auto counts = hammer(PolicyId::BtrfsRr, ms, state, t, 8);
    const long total = long{kThreads} * kCalls;
    // 32000 requests over 3 mirrors: 10667, 10667, 10666
    CHECK(counts == std::vector<long>{total / 3 + 1, total / 3 + 1, total / 3, 0});
    CHECK(state.total_read_requests.load() == static_cast<uint64_t>(total));
    CHECK(state.total_read_blocks.load() == static_cast<uint64_t>(total));
  }
  SECTION("by blocks: every 4 KiB block counted") {
    PolicyState state;
    const auto counts = hammer(PolicyId::BtrfsRr, ms, state, {}, 64);  // 32 KiB = 8 blocks
    CHECK(state.total_read_blocks.load() == uint64_t{kThreads} * kCalls * 8);
    // 256 KiB turns of 8 requests: 4000 turns, 1334/1333/1333 per mirror.
    CHECK(counts == std::vector<long>{1334 * 8, 1333 * 8, 1333 * 8, 0});
  }
}

TEST_CASE("every policy runs concurrently on one shared state", "[concurrency]") {
  PolicyState state;
  MemberSnapshot wm = hdd(2, 1);
  wm.write_mostly = true;
  MemberSnapshot dead = ssd(3);
  dead.readable = false;
  const std::vector<MemberSnapshot> ms{ssd(0, 2), hdd(1, 9), wm, dead};
  std::vector<std::thread> threads;
  std::atomic<long> bad{0};
  for (const std::string_view name : policy_names()) {
    const PolicyId id = *parse_policy(name);
    threads.emplace_back([&, id] {
      for (int i = 0; i < kCalls; ++i) {
        const Choice c = choose(id, read_at(8 * i, 8, i), ms, state, {});
        if (c.index < 0 || c.index == 3 || c.sectors != 8) ++bad;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(bad.load() == 0);
  CHECK(state.read_rr.load() == kCalls - 1);        // only md-rr bumps it
  CHECK(state.total_read_blocks.load() == kCalls);  // only btrfs-rr counts, 1 block a read
}
