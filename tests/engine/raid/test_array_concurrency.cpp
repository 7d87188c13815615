// Several submitting contexts on one array, as workload jobs run: each with
// its own backend, while another thread reads the counters and switches the
// read policy. Mainly a ThreadSanitizer target; also checks the data and
// the counter totals.
#include <atomic>
#include <thread>

#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

TEST_CASE("four submitters and a policy switcher share one array", "[raid][concurrency]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  const Geometry& g = arr->geometry();

  constexpr int kThreads = 4;
  constexpr unsigned kDepth = 8;
  constexpr uint32_t kMaxIo = 128 * 1024;
  const uint64_t region = std::min<uint64_t>(arr->size_bytes() / kThreads / 4096 * 4096, 2ull << 20);

  // Every job's I/O list is made up front, so the expected counts are known.
  struct Job {
    std::vector<uint8_t> data, back;
    std::vector<Request> writes, reads;
    std::string error;
  };
  std::vector<Job> jobs(kThreads);
  uint64_t want_reads = 0, want_writes = 0, want_read_bytes = 0, want_write_bytes = 0;
  for (int j = 0; j < kThreads; ++j) {
    std::mt19937_64 rng(100 + uint64_t(j));
    Job& job = jobs[size_t(j)];
    const uint64_t base = region * uint64_t(j);
    job.data = random_bytes(rng, region);
    job.back.assign(region, 0);
    for (uint64_t off = 0; off < region;) {
      const uint32_t len = uint32_t(std::min<uint64_t>(4096 * (1 + rng() % (kMaxIo / 4096)), region - off));
      job.writes.push_back({true, base + off, len, job.data.data() + off, uint32_t(j)});
      job.reads.push_back({false, base + off, len, job.back.data() + off, uint32_t(j)});
      const uint64_t segs = segments_of(g, base + off, len);
      want_writes += segs * uint64_t(g.copies());
      want_reads += segs;
      want_write_bytes += uint64_t(len) * uint64_t(g.copies());
      want_read_bytes += len;
      off += len;
    }
    std::shuffle(job.reads.begin(), job.reads.end(), rng);
  }

  std::atomic<int> running{kThreads};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int j = 0; j < kThreads; ++j) {
    threads.emplace_back([&, j] {
      Job& job = jobs[size_t(j)];
      while (!go.load()) std::this_thread::yield();
      try {
        // The backend is made on the thread that drives it (io_uring's
        // single-issuer rings belong to their creating task).
        auto be = arr->make_backend(kDepth);
        Pipeline p(*arr, *be, kDepth, kMaxIo);
        for (const auto* list : {&job.writes, &job.reads}) {
          auto res = p.run(*list);
          for (size_t i = 0; i < res.size(); ++i)
            if (res[i] != int((*list)[i].length) && job.error.empty())
              job.error = "I/O " + std::to_string(i) + " returned " + std::to_string(res[i]);
        }
      } catch (const std::exception& e) {
        job.error = e.what();
      }
      running.fetch_sub(1);
    });
  }
  // The watcher: what the GUI sampler and the tuning page do while jobs run.
  uint64_t switches = 0, snapshots = 0;
  std::thread watcher([&] {
    const balance::PolicyId all[] = {balance::PolicyId::MdLegacy, balance::PolicyId::MdRr,
                                     balance::PolicyId::BtrfsPid, balance::PolicyId::BtrfsRr,
                                     balance::PolicyId::BtrfsQlen};
    go = true;
    while (running.load() > 0) {
      for (int i = 0; i < arr->raid_disks(); ++i) snapshots += arr->slot(i).counters.snapshot().reads > 0;
      arr->set_policy(all[switches % 5]);
      ++switches;
      std::this_thread::yield();
    }
  });
  for (auto& t : threads) t.join();
  watcher.join();

  for (int j = 0; j < kThreads; ++j) {
    INFO("job " << j << ": " << jobs[size_t(j)].error);
    CHECK(jobs[size_t(j)].error.empty());
    CHECK(first_diff(jobs[size_t(j)].back, jobs[size_t(j)].data) == -1);
  }
  CHECK(switches > 0);
  uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
  for (int i = 0; i < cfg.disks; ++i) {
    auto s = arr->slot(i).counters.snapshot();
    reads += s.reads;
    writes += s.writes;
    read_bytes += s.read_bytes;
    write_bytes += s.write_bytes;
    CHECK(s.nr_pending == 0);
    CHECK(s.errors == 0);
  }
  CHECK(reads == want_reads);
  CHECK(writes == want_writes);
  CHECK(read_bytes == want_read_bytes);
  CHECK(write_bytes == want_write_bytes);

  // And what the jobs wrote is what a fresh assemble reads.
  arr.reset();
  arr = assemble(paths);
  std::string error;
  for (int j = 0; j < kThreads; ++j) {
    std::vector<uint8_t> back(region);
    REQUIRE(arr->read(region * uint64_t(j), back.data(), region, &error));
    CHECK(first_diff(back, jobs[size_t(j)].data) == -1);
  }
}
