// Writers and readers keep running while members are failed, replaced by
// new files and rebuilt, twice over: the member table changes under I/O in
// flight (devices closed only once no I/O holds them), the resync barrier
// keeps the copies equal, and nothing read or written is lost. The main
// ThreadSanitizer target of the engine core.
#include <atomic>
#include <thread>

#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

constexpr uint32_t kBlock = 4096;
constexpr int kWriters = 2, kReaders = 2;

// A block whose bytes say where it belongs and which version it is, so a
// reader can tell a right block from one read at the wrong place or torn.
void stamp(uint8_t* p, uint64_t block, uint64_t version) {
  for (uint32_t i = 0; i < kBlock; i += 16) {
    std::memcpy(p + i, &block, 8);
    std::memcpy(p + i + 8, &version, 8);
  }
}
bool stamped(const uint8_t* p, uint64_t block, uint64_t* version) {
  std::memcpy(version, p + 8, 8);
  for (uint32_t i = 0; i < kBlock; i += 16) {
    uint64_t b, v;
    std::memcpy(&b, p + i, 8);
    std::memcpy(&v, p + i + 8, 8);
    if (b != block || v != *version) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("I/O runs on while members are failed, replaced and rebuilt", "[raid][lifecycle][concurrency]") {
  const Config cfg = GENERATE(Config{"raid1 x3", 1, 3, ""}, Config{"raid10 n2 x4", 10, 4, "n2"});
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths, 16ull << 20);
  const uint64_t blocks = arr->size_bytes() / kBlock;
  const uint64_t per_writer = blocks / kWriters;
  // Every block starts at version 0.
  {
    std::vector<uint8_t> all(blocks * kBlock);
    for (uint64_t b = 0; b < blocks; ++b) stamp(all.data() + b * kBlock, b, 0);
    require_ok(array_write(*arr, 0, all.data(), all.size()));
  }
  // versions[b]: the last version a writer finished writing to block b.
  std::vector<std::atomic<uint64_t>> versions(blocks);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> writes{0}, reads{0};
  std::vector<std::string> errors(kWriters + kReaders);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w)
    threads.emplace_back([&, w] {
      try {
        TestPort tp(*arr);
        std::mt19937_64 rng(500 + uint64_t(w));
        std::vector<uint8_t> buf(kBlock);
        while (!stop.load()) {
          const uint64_t b = uint64_t(w) * per_writer + rng() % per_writer;  // this writer's own blocks
          const uint64_t v = versions[b].load() + 1;
          stamp(buf.data(), b, v);
          const int r = submit_rw(tp, true, b * kBlock, buf.data(), kBlock);
          if (r != int(kBlock)) throw std::runtime_error("write of block " + std::to_string(b) + ": " + std::to_string(r));
          versions[b].store(v);
          writes.fetch_add(1);
        }
      } catch (const std::exception& e) {
        errors[size_t(w)] = e.what();
      }
    });
  for (int r = 0; r < kReaders; ++r)
    threads.emplace_back([&, r] {
      try {
        TestPort tp(*arr);
        std::mt19937_64 rng(900 + uint64_t(r));
        std::vector<uint8_t> buf(kBlock);
        while (!stop.load()) {
          const uint64_t b = rng() % blocks;
          const uint64_t before = versions[b].load();
          const int res = submit_rw(tp, false, b * kBlock, buf.data(), kBlock, uint32_t(r));
          const uint64_t after = versions[b].load();
          uint64_t v = 0;
          if (res != int(kBlock)) throw std::runtime_error("read of block " + std::to_string(b) + ": " + std::to_string(res));
          // A version that finished before the read started, or one in flight.
          if (!stamped(buf.data(), b, &v) || v < before || v > after + 1)
            throw std::runtime_error("block " + std::to_string(b) + " read back as version " + std::to_string(v) +
                                     " (expected " + std::to_string(before) + ".." + std::to_string(after + 1) + ")");
          reads.fetch_add(1);
        }
      } catch (const std::exception& e) {
        errors[size_t(kWriters + r)] = e.what();
      }
    });

  // Twice: fail a member while I/O runs, replace it with a new file, rebuild.
  for (int round = 0; round < 2; ++round) {
    const uint64_t w0 = writes.load();
    while (writes.load() < w0 + 200 && errors[0].empty()) std::this_thread::yield();
    const int victim = round == 0 ? 1 : 0;
    require_ok(arr->fail_member(victim, "failed by the test"));
    CHECK(state(*arr, victim) == MemberState::faulty);
    const uint64_t w1 = writes.load();
    while (writes.load() < w1 + 200 && errors[0].empty()) std::this_thread::yield();  // degraded I/O
    AddOptions o;
    o.create_files_bytes = 16ull << 20;
    require_ok(add_member(*arr, dir.file("new" + std::to_string(round) + ".img"), o));
    CHECK(state(*arr, victim) == MemberState::in_sync);
  }
  stop = true;
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < errors.size(); ++i) {
    INFO("thread " << i);
    CHECK(errors[i].empty());
    if (!errors[i].empty()) FAIL_CHECK(errors[i]);
  }
  CHECK(writes.load() > 400);
  CHECK(reads.load() > 0);
  CHECK(check_ok(*arr, false) == 0);

  // After a stop, every block holds the last version written to it.
  std::vector<std::string> now;
  for (int i = 0; i < cfg.disks; ++i) now.push_back((*arr->table())[i].name);
  arr.reset();
  arr = assemble(now);
  CHECK(arr->working_members() == cfg.disks);
  std::vector<uint8_t> all(blocks * kBlock);
  require_ok(array_read(*arr, 0, all.data(), all.size()));
  uint64_t wrong = 0;
  for (uint64_t b = 0; b < blocks; ++b) {
    uint64_t v = 0;
    wrong += !stamped(all.data() + b * kBlock, b, &v) || v != versions[b].load();
  }
  CHECK(wrong == 0);
}
