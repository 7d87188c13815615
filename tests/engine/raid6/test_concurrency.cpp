// RAID6 writers on several contexts sharing stripes (their regions
// interleave page by page, so every stripe has writers from every thread
// and rmw/rcw must not mix half-written stripes), two members failed one
// after the other while they run, then both rebuilt: every byte reads back
// and check finds P and Q right. A ThreadSanitizer target.
#include <atomic>
#include <thread>

#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

namespace {

constexpr int kWriters = 3;
constexpr unsigned kQueueDepth = 8;

struct WriterJob {
  std::vector<Request> writes, reads;
  std::string error;
};

}  // namespace

TEST_CASE("raid6 concurrent writers, two members failed mid-run, rebuilt: nothing lost",
          "[raid6][concurrency]") {
  TempDir dir;
  auto paths = member_paths(dir, 8);  // 8 members: single-page writes go by rmw
  auto arr = create_raid6({8, 2}, paths);
  const uint64_t size = arr->size_bytes();
  std::mt19937_64 rng(66);
  std::vector<uint8_t> model = random_bytes(rng, size), back(size, 0);
  std::vector<WriterJob> jobs(kWriters);
  const uint64_t pages = size / 4096;
  for (uint64_t p = 0; p < pages; ++p) {
    WriterJob& j = jobs[p % kWriters];
    j.writes.push_back({true, p * 4096, 4096, model.data() + p * 4096, uint32_t(p % kWriters)});
    j.reads.push_back({false, p * 4096, 4096, back.data() + p * 4096, uint32_t(p % kWriters)});
  }
  for (auto& j : jobs) std::shuffle(j.writes.begin(), j.writes.end(), rng);

  std::atomic<uint64_t> written{0};
  std::atomic<bool> both_failed{false};
  std::string fail_error;
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t)
    writers.emplace_back([&, t] {
      WriterJob& job = jobs[size_t(t)];
      try {
        TestPort tp(*arr);
        Pipeline pipe(tp, kQueueDepth, 4096);
        for (size_t at = 0; at < job.writes.size(); at += 64) {  // slices: the failures land mid-run
          const auto end = std::min(at + 64, job.writes.size());
          std::vector<Request> slice(job.writes.begin() + std::ptrdiff_t(at),
                                     job.writes.begin() + std::ptrdiff_t(end));
          for (int r : pipe.run(slice))
            if (r != 4096 && job.error.empty()) job.error = "write returned " + std::to_string(r);
          written.fetch_add(slice.size());
        }
        while (!both_failed.load()) std::this_thread::yield();
        for (int r : pipe.run(job.reads))
          if (r != 4096 && job.error.empty()) job.error = "read returned " + std::to_string(r);
      } catch (const std::exception& e) {
        job.error = e.what();
      }
    });
  std::thread failer([&] {
    uint64_t third = 0;
    for (int member : {1, 4}) {  // after a third of the writes, then after two thirds
      third += pages / 3;
      while (written.load() < third) std::this_thread::yield();
      if (Status st = arr->fail_member(member, "failed while writers run"); !st)
        fail_error = st.error().message;
    }
    both_failed = true;
  });
  for (auto& t : writers) t.join();
  failer.join();
  INFO(fail_error);
  CHECK(fail_error.empty());
  for (auto& j : jobs) {
    INFO(j.error);
    CHECK(j.error.empty());
  }
  CHECK(first_diff(back, model) == -1);
  CHECK(personality(*arr).active_stripes() == 0);
  CHECK(personality(*arr).counters().rmw.load() > 0);

  for (int k : {1, 4}) {
    raid::AddOptions ao;
    ao.create_files_bytes = kRaid6MemberBytes;
    require_ok(add_member(*arr, dir.file("new" + std::to_string(k) + ".img"), ao));
  }
  CHECK(check_ok(*arr, false) == 0);
  std::vector<uint8_t> again(size);
  require_ok(array_read(*arr, 0, again.data(), size));
  CHECK(first_diff(again, model) == -1);
}
