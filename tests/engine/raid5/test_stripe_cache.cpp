// The stripe cache: at most stripe_cache_size heads, none when all are
// active (the writer waits), inactive heads keep their pages until taken
// over (least recently used first), adjacent columns get adjacent slots
// (so their pages merge into one member I/O), shrinking drops inactive
// heads. And an array whose cache is far smaller than one write: the write
// waits for heads mid-way and still lands whole.
#include <catch2/catch.hpp>
#include <vector>

#include "io/backend.hpp"
#include "raid5/stripe_cache.hpp"
#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5;
using namespace rs::raid5::test;

TEST_CASE("stripe cache: bounded, LRU reuse keeps pages until taken over", "[raid5][cache]") {
  StripeCache c(4);
  REQUIRE(c.reserve().ok());
  c.set_capacity(3);
  StripeHead* a = c.get(100);
  StripeHead* b = c.get(200);
  StripeHead* d = c.get(300);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(d);
  CHECK(c.active() == 3);
  CHECK(c.free_heads() == 0);
  CHECK(c.get(400) == nullptr);  // every head active: the caller waits
  CHECK(c.get(200) == b);        // an active head is found again

  a->uptodate[2] = 1;
  c.release(a);  // inactive, least recently used
  c.release(b);
  CHECK(c.active() == 1);
  CHECK(c.free_heads() == 2);
  // Column 100 is still cached with its page.
  StripeHead* again = c.get(100);
  CHECK(again == a);
  CHECK(a->uptodate[2] == 1);
  c.release(a);  // now b (200) is the least recently used
  StripeHead* e = c.get(500);
  CHECK(e == b);  // took over 200's head
  CHECK(e->column == 500);
  CHECK(c.find(200) == nullptr);
  CHECK(e->uptodate == std::vector<uint8_t>(4, 0));
  // Invalidation: a cached head comes back without its pages.
  c.invalidate();
  StripeHead* f = c.get(100);
  CHECK(f == a);
  CHECK(f->uptodate == std::vector<uint8_t>(4, 0));
}

TEST_CASE("stripe cache: adjacent columns get adjacent pages; shrinking drops inactive heads",
          "[raid5][cache]") {
  StripeCache c(3);
  REQUIRE(c.reserve().ok());
  c.set_capacity(8);
  StripeHead* h0 = c.get(40);
  StripeHead* h1 = c.get(41);
  StripeHead* h2 = c.get(42);
  CHECK(h1->slot == h0->slot + 1);
  CHECK(h2->slot == h1->slot + 1);
  for (int m = 0; m < 3; ++m) CHECK(c.page(m, h1->slot) == c.page(m, h0->slot) + kPageBytes);
  c.release(h0);
  c.release(h1);
  c.release(h2);
  // A new run takes over the old one's slots in order.
  StripeHead* n0 = c.get(90);
  StripeHead* n1 = c.get(91);
  CHECK(n1->slot == n0->slot + 1);
  CHECK(c.active() == 2);
  c.set_capacity(2);  // the inactive head goes at once
  CHECK(c.inactive() == 0);
  CHECK(c.free_heads() == 0);
  CHECK(c.get(7) == nullptr);
  c.release(n0);
  CHECK(c.get(7) != nullptr);
}

TEST_CASE("raid5 with stripe_cache_size 17: writes larger than the cache wait for heads and land whole",
          "[raid5][cache][roundtrip]") {
  TempDir dir;
  auto paths = member_paths(dir, 4);
  auto arr = create_raid5({4, 2}, paths);
  require_ok(arr->tunables().set("stripe_cache_size", "17"));
  CHECK(personality(*arr).stripe_cache_size() == 17);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(0x5ca1e17);
  // 1 MiB is 256 blocks over 86 stripe heads: five times the cache.
  for (int i = 0; i < 6; ++i) {
    const size_t len = i % 2 ? (1u << 20) : 300 * 1024 + 512;
    const uint64_t off = (rng() % (model.size() - len)) & ~uint64_t(511);
    auto data = random_bytes(rng, len);
    require_ok(array_write(*arr, off, data.data(), len));
    std::memcpy(model.data() + off, data.data(), len);
  }
  std::vector<uint8_t> back(model.size());
  require_ok(array_read(*arr, 0, back.data(), back.size()));
  CHECK(first_diff(back, model) == -1);
  CHECK(personality(*arr).active_stripes() == 0);
  CHECK(check_ok(*arr, false) == 0);
}

TEST_CASE(
    "stripe cache: a column is evicted when its head is taken over or dropped, not when it goes inactive",
    "[raid5][cache]") {
  StripeCache c(4);
  REQUIRE(c.reserve().ok());
  c.set_capacity(2);
  StripeHead* a = c.get(100);
  StripeHead* b = c.get(200);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(c.evicted().empty());  // fresh heads had no column
  c.release(a);
  c.release(b);
  CHECK(c.evicted().empty());  // inactive, columns kept
  CHECK(c.get(100) == a);      // found again: still column 100's head
  CHECK(c.evicted().empty());
  StripeHead* d = c.get(300);  // takes over the least recently used inactive head (200's)
  CHECK(d == b);
  CHECK(c.evicted() == std::vector<uint64_t>{200});
  c.evicted().clear();
  c.release(d);
  c.set_capacity(1);  // drops the inactive head (300's)
  CHECK(c.evicted() == std::vector<uint64_t>{300});
}

namespace {
// A backend that only registers buffers: regions up to `limit` bytes are
// taken (as io_uring under RLIMIT_MEMLOCK), larger ones refused.
class RegistryBackend final : public io::Backend {
 public:
  size_t limit = SIZE_MAX;
  struct Region {
    const uint8_t* base;
    size_t bytes;
    int handle;
  };
  std::vector<Region> regions;

  int register_owned_buffer(void* base, size_t bytes, std::shared_ptr<const void>) override {
    if (bytes > limit) return -1;
    regions.push_back({static_cast<const uint8_t*>(base), bytes, next_++});
    return regions.back().handle;
  }
  void unregister_buffer(int handle) override {
    std::erase_if(regions, [&](const Region& r) { return r.handle == handle; });
  }
  int registered_buffer(const void* p, size_t bytes) const override {
    const auto* q = static_cast<const uint8_t*>(p);
    for (const Region& r : regions)
      if (q >= r.base && q + bytes <= r.base + r.bytes) return r.handle;
    return -1;
  }
  void queue(io::MemberIo&) override {}
  void submit() override {}
  void queue_timer(io::MemberIo&, uint64_t) override {}
  unsigned reap(unsigned) override { return 0; }
  uint64_t now_ns() override { return 0; }
  unsigned in_flight() const override { return 0; }
  std::string describe() const override { return "registry"; }

 private:
  int next_ = 0;
};
}  // namespace

TEST_CASE("stripe cache: a larger registration refused keeps the smaller one", "[raid5][cache]") {
  constexpr int kDisks = 4;
  StripeCache c(kDisks);
  REQUIRE(c.reserve().ok());
  RegistryBackend b;
  c.register_pages(b, 16);
  REQUIRE(b.regions.size() == size_t(kDisks));
  for (int m = 0; m < kDisks; ++m) CHECK(b.registered_buffer(c.page(m, 0), 16 * kPageBytes) >= 0);

  // The cache grew to 32 heads, but the kernel takes no more than 16 pages:
  // every member keeps its 16 registered pages (reads into them stay fixed).
  b.limit = 16 * kPageBytes;
  c.register_pages(b, 32);
  CHECK(b.regions.size() == size_t(kDisks));
  for (int m = 0; m < kDisks; ++m) CHECK(b.registered_buffer(c.page(m, 0), 16 * kPageBytes) >= 0);

  // Taken: the 32 pages replace the 16 (one region per member, none left over).
  b.limit = SIZE_MAX;
  c.register_pages(b, 32);
  CHECK(b.regions.size() == size_t(kDisks));
  for (int m = 0; m < kDisks; ++m) CHECK(b.registered_buffer(c.page(m, 0), 32 * kPageBytes) >= 0);
}
