// Writers on several contexts sharing stripes (their regions interleave
// page by page, so every stripe has writers from every thread and rmw/rcw
// must not mix their half-written stripes), a member failed while they
// run, then rebuilt: every byte reads back, and check finds parity right.
// A ThreadSanitizer target.
#include <atomic>
#include <thread>

#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

namespace {

constexpr int kThreads = 3;
constexpr unsigned kDepth = 8;

struct Job {
  std::vector<Request> writes, reads;
  std::string error;
};

}  // namespace

TEST_CASE("concurrent writers, a member failed mid-run, rebuilt: nothing lost", "[raid5][concurrency]") {
  const Geometry g{4, 2};
  TempDir dir;
  auto paths = member_paths(dir, g.disks);
  auto arr = create_raid5(g, paths);
  const uint64_t size = arr->size_bytes();
  std::mt19937_64 rng(7);
  std::vector<uint8_t> model = random_bytes(rng, size), back(size, 0);
  // Thread t writes 4 KiB pages t, t + kThreads, ... in runs of 1..3 pages
  // of its own, so neighbouring pages (same stripe) belong to other threads.
  std::vector<Job> jobs(kThreads);
  const uint64_t pages = size / 4096;
  for (uint64_t p = 0; p < pages; ++p) {
    Job& j = jobs[p % kThreads];
    j.writes.push_back({true, p * 4096, 4096, model.data() + p * 4096, uint32_t(p % kThreads)});
    j.reads.push_back({false, p * 4096, 4096, back.data() + p * 4096, uint32_t(p % kThreads)});
  }
  for (auto& j : jobs) std::shuffle(j.writes.begin(), j.writes.end(), rng);

  std::atomic<uint64_t> done_writes{0};
  std::atomic<bool> failed{false};
  std::string fail_error;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Job& job = jobs[size_t(t)];
      try {
        TestPort tp(*arr);
        Pipeline p(tp, kDepth, 4096);
        // In slices, so the failure lands between them, mid-run.
        for (size_t at = 0; at < job.writes.size(); at += 64) {
          std::vector<Request> slice(job.writes.begin() + std::ptrdiff_t(at),
                                     job.writes.begin() + std::ptrdiff_t(std::min(at + 64, job.writes.size())));
          for (int r : p.run(slice))
            if (r != 4096 && job.error.empty()) job.error = "write returned " + std::to_string(r);
          done_writes.fetch_add(slice.size());
        }
        while (!failed.load()) std::this_thread::yield();
        for (int r : p.run(job.reads))
          if (r != 4096 && job.error.empty()) job.error = "read returned " + std::to_string(r);
      } catch (const std::exception& e) {
        job.error = e.what();
      }
    });
  std::thread failer([&] {
    while (done_writes.load() < pages / 3) std::this_thread::yield();
    if (Status st = arr->fail_member(1, "failed while writers run"); !st) fail_error = st.error().message;
    failed = true;
  });
  for (auto& t : threads) t.join();
  failer.join();
  INFO(fail_error);
  CHECK(fail_error.empty());
  for (auto& j : jobs) {
    INFO(j.error);
    CHECK(j.error.empty());
  }
  CHECK(first_diff(back, model) == -1);
  CHECK(personality(*arr).active_stripes() == 0);

  raid::AddOptions ao;
  ao.create_files_bytes = kRaid5MemberBytes;
  require_ok(add_member(*arr, dir.file("new.img"), ao));
  CHECK(check_ok(*arr, false) == 0);
  std::vector<uint8_t> again(size);
  require_ok(array_read(*arr, 0, again.data(), size));
  CHECK(first_diff(again, model) == -1);
}
