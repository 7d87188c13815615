// Helpers shared by the RAID5 and RAID6 tests (one personality serves both
// levels, as md's raid5.c does): an array of image files at either level,
// and writers on several contexts sharing stripes while members fail.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "../raid/raid_test_util.hpp"
#include "raid5/raid5.hpp"

namespace rs::parity::test {

using namespace rs::raid::test;

// 1 MiB of metadata and 4 MiB of data per member: 64 stripes of 64 KiB chunks.
inline constexpr uint64_t kParityMemberBytes = 5ull << 20;

struct Geometry {
  int disks;
  uint32_t layout;  // md's ALGORITHM_*: 0 la, 1 ra, 2 ls, 3 rs; RAID6 also 16..19 (Q on the last member)
};

inline std::unique_ptr<raid::Array> create_parity_array(int level, const Geometry& g,
                                                        const std::vector<std::string>& paths,
                                                        uint64_t member_bytes = kParityMemberBytes) {
  raid::CreateOptions o;
  o.level = level;
  o.raid_disks = g.disks;
  o.layout = g.layout;
  o.chunk_bytes = kChunkBytes;
  o.create_files_bytes = member_bytes;
  auto arr = raid::Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

inline raid5::Raid5Personality& personality(raid::Array& arr) {
  return dynamic_cast<raid5::Raid5Personality&>(arr.personality());
}

// Writes `n` random pieces (odd offsets and lengths, some across stripes,
// some whole aligned stripes) through the array and into the model.
inline void write_random(raid::Array& arr, std::vector<uint8_t>& model, std::mt19937_64& rng, int n) {
  for (int i = 0; i < n; ++i) {
    const size_t len = 1 + size_t(rng() % (i % 3 == 0 ? 300 * 1024 : 9000));
    const uint64_t off =
        i % 4 == 1 ? (rng() % (model.size() / 4096 - 76)) * 4096 : rng() % (model.size() - len);
    auto data = random_bytes(rng, len);
    INFO("write " << len << " bytes at " << off);
    require_ok(array_write(arr, off, data.data(), len));
    std::memcpy(model.data() + off, data.data(), len);
  }
}

// Reads the whole of `model`'s span from the array and requires it unchanged.
inline void read_matches(raid::Array& arr, const std::vector<uint8_t>& model) {
  std::vector<uint8_t> back(model.size());
  require_ok(array_read(arr, 0, back.data(), back.size()));
  REQUIRE(first_diff(back, model) == -1);
}

// Adds (or resumes) every path in one add and waits for its rebuild: one
// pass for all of them.
inline Status add_members(raid::Array& arr, const std::vector<std::string>& paths, raid::AddOptions ao = {}) {
  auto task = arr.start_add(paths, ao);
  if (!task) return task.error();
  return (*task)->wait();
}

// What writers_with_failures() saw: "" where all went well.
struct WritersOutcome {
  std::string fail_error;
  std::vector<std::string> errors;  // one per writer
};

// Three writers on their own contexts write `model` in 4 KiB pages, writer
// t taking pages t, t + 3, ... in a shuffled order (so every stripe has
// pages of every writer and rmw/rcw must not mix half-written stripes);
// the members in `fail` are failed one after another, after 1/(n+1),
// 2/(n+1), ... of the writes; then each reads its pages back into `back`.
inline WritersOutcome writers_with_failures(raid::Array& arr, const std::vector<uint8_t>& model,
                                            std::vector<uint8_t>& back, std::mt19937_64& rng,
                                            const std::vector<int>& fail) {
  constexpr int kWriters = 3;
  constexpr unsigned kQueueDepth = 8;
  struct Job {
    std::vector<Request> writes, reads;
  };
  std::vector<Job> jobs(kWriters);
  WritersOutcome out;
  out.errors.resize(kWriters);
  const uint64_t pages = model.size() / 4096;
  for (uint64_t p = 0; p < pages; ++p) {
    Job& j = jobs[p % kWriters];
    uint8_t* src = const_cast<uint8_t*>(model.data()) + p * 4096;  // only read: the writes' source
    j.writes.push_back({true, p * 4096, 4096, src, uint32_t(p % kWriters)});
    j.reads.push_back({false, p * 4096, 4096, back.data() + p * 4096, uint32_t(p % kWriters)});
  }
  for (auto& j : jobs) std::shuffle(j.writes.begin(), j.writes.end(), rng);
  std::atomic<uint64_t> written{0};
  std::atomic<bool> all_failed{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t)
    writers.emplace_back([&, t] {
      Job& job = jobs[size_t(t)];
      std::string& error = out.errors[size_t(t)];
      try {
        TestPort tp(arr);
        Pipeline pipe(tp, kQueueDepth, 4096);
        for (size_t at = 0; at < job.writes.size(); at += 64) {  // slices: the failures land mid-run
          const auto end = std::min(at + 64, job.writes.size());
          std::vector<Request> slice(job.writes.begin() + std::ptrdiff_t(at),
                                     job.writes.begin() + std::ptrdiff_t(end));
          for (int r : pipe.run(slice))
            if (r != 4096 && error.empty()) error = "write returned " + std::to_string(r);
          written.fetch_add(slice.size());
        }
        while (!all_failed.load()) std::this_thread::yield();
        for (int r : pipe.run(job.reads))
          if (r != 4096 && error.empty()) error = "read returned " + std::to_string(r);
      } catch (const std::exception& e) {
        error = e.what();
      }
    });
  std::thread failer([&] {
    for (size_t k = 0; k < fail.size(); ++k) {
      while (written.load() < pages * (k + 1) / (fail.size() + 1)) std::this_thread::yield();
      if (Status st = arr.fail_member(fail[k], "failed while writers run"); !st && out.fail_error.empty())
        out.fail_error = st.error().message;
    }
    all_failed = true;
  });
  for (auto& t : writers) t.join();
  failer.join();
  return out;
}

// The test's view of what writers_with_failures() reported.
inline void require_writers_ok(const WritersOutcome& o) {
  INFO(o.fail_error);
  CHECK(o.fail_error.empty());
  for (auto& e : o.errors) {
    INFO(e);
    CHECK(e.empty());
  }
}

}  // namespace rs::parity::test
