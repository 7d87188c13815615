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

namespace {

constexpr int kThreads = 4;
constexpr unsigned kDepth = 8;
constexpr uint32_t kMaxIo = 128 * 1024;

struct Job {
  std::vector<uint8_t> data, back;
  std::vector<Request> writes, reads;
  std::string error;
};

struct Expected {
  uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
};

// Each job writes its own region in pieces of odd sizes, then reads them
// back in another order. Every list is made up front, so the counts a
// healthy array must show are known.
std::vector<Job> make_jobs(const Array& arr, uint64_t region, Expected* want) {
  const uint64_t copies = copies_of(arr, 0).size();
  std::vector<Job> jobs(kThreads);
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
      const uint64_t segs = segments_of(arr, base + off, len);
      want->writes += segs * copies;
      want->reads += segs;
      want->write_bytes += uint64_t(len) * copies;
      want->read_bytes += len;
      off += len;
    }
    std::shuffle(job.reads.begin(), job.reads.end(), rng);
  }
  return jobs;
}

// Runs the jobs on their own threads while a watcher reads the counters,
// switches the read policy through all five and, once `fail_after_writes`
// member writes are done (0: never), fails member 0. With a failure, the
// jobs read back only after it, so the reads must avoid the failed member;
// when the watcher is slow the failure comes once every write is done.
void run_jobs(Array& arr, std::vector<Job>& jobs, uint64_t fail_after_writes, std::string* fail_error) {
  std::atomic<int> running{kThreads}, writers_done{0};
  std::atomic<bool> go{false}, failure_done{fail_after_writes == 0};
  std::vector<std::thread> threads;
  for (int j = 0; j < kThreads; ++j) {
    threads.emplace_back([&, j] {
      Job& job = jobs[size_t(j)];
      while (!go.load()) std::this_thread::yield();
      bool wrote = false;
      try {
        // The backend is made on the thread that drives it (io_uring's
        // single-issuer rings belong to their creating task).
        TestPort be(arr);
        Pipeline p(be, kDepth, kMaxIo);
        for (const auto* list : {&job.writes, &job.reads}) {
          if (list == &job.reads) {
            wrote = true;
            writers_done.fetch_add(1);
            while (!failure_done.load()) std::this_thread::yield();
          }
          auto res = p.run(*list);
          for (size_t i = 0; i < res.size(); ++i)
            if (res[i] != int((*list)[i].length) && job.error.empty())
              job.error = "I/O " + std::to_string(i) + " returned " + std::to_string(res[i]);
        }
      } catch (const std::exception& e) {
        job.error = e.what();
      }
      if (!wrote) writers_done.fetch_add(1);  // a job that threw must not hold up the others
      running.fetch_sub(1);
    });
  }
  // The watcher: what the GUI sampler, the tuning page and `bench
  // --fail-member` do while jobs run.
  std::thread watcher([&] {
    const char* all[] = {"md-legacy", "md-rr", "btrfs-pid", "btrfs-rr", "btrfs-qlen"};
    go = true;
    bool failed = false;
    for (uint64_t n = 0; running.load() > 0; ++n) {
      uint64_t writes = 0;
      for (int i = 0; i < arr.raid_disks(); ++i) writes += arr.runtime(i).counters.snapshot().writes;
      if (fail_after_writes && !failed && (writes >= fail_after_writes || writers_done.load() == kThreads)) {
        failed = true;
        if (Status st = arr.fail_member(0, "failed while jobs run"); !st) *fail_error = st.error().message;
        failure_done = true;
      }
      if (!arr.tunables().set("read_policy", all[n % 5])) *fail_error = "read_policy refused";
      std::this_thread::yield();
    }
  });
  for (auto& t : threads) t.join();
  watcher.join();
}

void check_jobs(const std::vector<Job>& jobs) {
  for (size_t j = 0; j < jobs.size(); ++j) {
    INFO("job " << j << ": " << jobs[j].error);
    CHECK(jobs[j].error.empty());
    CHECK(first_diff(jobs[j].back, jobs[j].data) == -1);
  }
}

// What the jobs wrote is what a fresh assemble reads.
void check_after_reassemble(std::unique_ptr<Array>& arr, const std::vector<std::string>& paths,
                            const std::vector<Job>& jobs, uint64_t region) {
  arr.reset();
  arr = assemble(paths);
  for (size_t j = 0; j < jobs.size(); ++j) {
    std::vector<uint8_t> back(region);
    require_ok(array_read(*arr, region * j, back.data(), region));
    CHECK(first_diff(back, jobs[j].data) == -1);
  }
}

uint64_t region_for(const Array& arr) {
  return std::min<uint64_t>(arr.size_bytes() / kThreads / 4096 * 4096, 2ull << 20);
}

}  // namespace

TEST_CASE("four submitters and a policy switcher share one array", "[raid][concurrency]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  const uint64_t region = region_for(*arr);
  Expected want;
  auto jobs = make_jobs(*arr, region, &want);
  std::string unused;
  run_jobs(*arr, jobs, 0, &unused);
  CHECK(unused.empty());
  check_jobs(jobs);

  const auto t = member_totals(*arr);
  CHECK(t.reads == want.reads);
  CHECK(t.writes == want.writes);  // one per copy
  CHECK(t.read_bytes == want.read_bytes);
  CHECK(t.write_bytes == want.write_bytes);
  CHECK(t.errors == 0);
  for (int i = 0; i < cfg.disks; ++i) CHECK(arr->runtime(i).counters.snapshot().nr_pending == 0);
  check_after_reassemble(arr, paths, jobs, region);
}

TEST_CASE("a member failed while four submitters run loses no data", "[raid][concurrency]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  const uint64_t region = region_for(*arr);
  Expected want;
  auto jobs = make_jobs(*arr, region, &want);
  std::string fail_error;
  run_jobs(*arr, jobs, want.writes / 3, &fail_error);
  INFO(fail_error);
  REQUIRE(fail_error.empty());
  check_jobs(jobs);
  CHECK(state(*arr, 0) == MemberState::faulty);

  const auto t = member_totals(*arr);
  // Member 0 missed the writes issued after it failed (how many depends on
  // the timing); every read was served once, by some working copy.
  CHECK(t.writes <= want.writes);
  CHECK(t.reads == want.reads);
  CHECK(t.errors == 0);
  CHECK(t.nr_pending == 0);
  check_after_reassemble(arr, paths, jobs, region);
}
