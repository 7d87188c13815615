// I/O pattern generation: sequential order and wrap, fio's random map,
// norandommap, fio's zipf/pareto/normal shapes (reference figures measured
// with fio 3.33's write_iolog), rwmix ratios and determinism.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "workload/offset_generator.hpp"

using namespace rs::workload;

namespace {

JobOptions make_job(RwMode rw, uint64_t size, uint32_t bs = 4096, uint64_t offset = 0) {
  JobOptions j;
  j.name = "t";
  j.rw = rw;
  j.size = size;
  j.offset = offset;
  j.bs = {bs, bs};
  return j;
}

std::vector<IoRequest> take(OffsetGenerator& g, size_t n) {
  std::vector<IoRequest> v;
  v.reserve(n);
  for (size_t i = 0; i < n; ++i) v.push_back(g.next());
  return v;
}

// Hit counts per block; share of all hits that land on the hottest 10% of
// blocks, and on the middle 20% of the region.
struct Shape {
  double top10 = 0;
  double middle20 = 0;
  size_t distinct = 0;
};
Shape shape(const JobOptions& job, uint64_t seed, size_t ios) {
  OffsetGenerator g(job, seed);
  const uint64_t blocks = job.size / job.bs[kDdirRead];
  std::vector<uint64_t> hits(blocks);
  uint64_t middle = 0;
  for (size_t i = 0; i < ios; ++i) {
    IoRequest io = g.next();
    uint64_t b = (io.offset - job.offset) / job.bs[kDdirRead];
    REQUIRE(b < blocks);
    ++hits[b];
    if (b >= blocks * 4 / 10 && b < blocks * 6 / 10) ++middle;
  }
  Shape s;
  s.distinct = static_cast<size_t>(std::count_if(hits.begin(), hits.end(), [](uint64_t h) { return h > 0; }));
  std::sort(hits.begin(), hits.end(), std::greater<>());
  uint64_t top = 0;
  for (size_t i = 0; i < blocks / 10; ++i) top += hits[i];
  s.top10 = static_cast<double>(top) / static_cast<double>(ios);
  s.middle20 = static_cast<double>(middle) / static_cast<double>(ios);
  return s;
}

}  // namespace

TEST_CASE("sequential I/O walks the region block by block and wraps", "[offset_generator]") {
  constexpr uint64_t kStart = 1 << 20;
  JobOptions job = make_job(RwMode::read, 64 * 1024, 4096, kStart);
  OffsetGenerator g(job, 1);
  for (int pass = 0; pass < 3; ++pass) {
    for (uint64_t i = 0; i < 16; ++i) {
      IoRequest io = g.next();
      CHECK(io.offset == kStart + i * 4096);
      CHECK(io.length == 4096);
      CHECK_FALSE(io.is_write);
    }
  }
  JobOptions w = make_job(RwMode::write, 10 * 1024, 4096);  // tail of 2 KiB is never used
  OffsetGenerator gw(w, 1);
  std::vector<uint64_t> offsets;
  for (const auto& io : take(gw, 5)) {
    CHECK(io.is_write);
    offsets.push_back(io.offset);
  }
  CHECK(offsets == std::vector<uint64_t>{0, 4096, 0, 4096, 0});
}

TEST_CASE("rw keeps separate read and write positions", "[offset_generator]") {
  JobOptions job = make_job(RwMode::readwrite, 1 << 20);
  job.bs = {4096, 8192};
  OffsetGenerator g(job, 7);
  uint64_t next_read = 0, next_write = 0, reads = 0, writes = 0;
  for (const auto& io : take(g, 1000)) {
    if (io.is_write) {
      CHECK(io.length == 8192);
      CHECK(io.offset == next_write);
      next_write = (next_write + 8192) % (1 << 20);
      ++writes;
    } else {
      CHECK(io.length == 4096);
      CHECK(io.offset == next_read);
      next_read = (next_read + 4096) % (1 << 20);
      ++reads;
    }
  }
  CHECK(reads > 400);
  CHECK(writes > 400);
}

TEST_CASE("the random map visits every block exactly once per pass", "[offset_generator]") {
  constexpr uint64_t kBlocks = 1000;  // not a power of two: exercises cycle walking
  constexpr uint64_t kStart = 3 * 4096;
  JobOptions job = make_job(RwMode::randread, kBlocks * 4096 + 100, 4096, kStart);
  OffsetGenerator g(job, 42);
  std::vector<uint64_t> first_pass;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<uint64_t> order;
    std::set<uint64_t> seen;
    for (uint64_t i = 0; i < kBlocks; ++i) {
      IoRequest io = g.next();
      REQUIRE(io.offset >= kStart);
      REQUIRE((io.offset - kStart) % 4096 == 0);
      uint64_t b = (io.offset - kStart) / 4096;
      REQUIRE(b < kBlocks);
      seen.insert(b);
      order.push_back(b);
    }
    CHECK(seen.size() == kBlocks);
    if (pass == 0)
      first_pass = order;
    else
      CHECK(order != first_pass);  // a new order each pass
  }
  // Not the identity either.
  std::vector<uint64_t> identity(kBlocks);
  for (uint64_t i = 0; i < kBlocks; ++i) identity[i] = i;
  CHECK(first_pass != identity);
}

TEST_CASE("randrw shares one random map when read and write bs match", "[offset_generator]") {
  JobOptions job = make_job(RwMode::randrw, 512 * 4096);
  OffsetGenerator g(job, 9);
  std::set<uint64_t> seen;
  unsigned writes = 0;
  for (const auto& io : take(g, 512)) {
    seen.insert(io.offset);
    writes += io.is_write;
  }
  CHECK(seen.size() == 512);  // reads and writes together cover each block once
  CHECK(writes > 200);
  CHECK(writes < 312);
}

TEST_CASE("randrw with different bs keeps a map per direction", "[offset_generator]") {
  JobOptions job = make_job(RwMode::randrw, 1 << 20);
  job.bs = {4096, 65536};
  job.rwmixread = 50;
  OffsetGenerator g(job, 11);
  std::set<uint64_t> reads, writes;
  unsigned nreads = 0, nwrites = 0;
  while (nreads < 256 || nwrites < 16) {
    IoRequest io = g.next();
    if (io.is_write) {
      CHECK(io.length == 65536);
      CHECK(io.offset % 65536 == 0);
      CHECK(io.offset + io.length <= (1u << 20));
      if (nwrites++ < 16) writes.insert(io.offset);
    } else {
      CHECK(io.length == 4096);
      CHECK(io.offset % 4096 == 0);
      if (nreads++ < 256) reads.insert(io.offset);
    }
  }
  CHECK(reads.size() == 256);  // the first pass of each direction has no repeats
  CHECK(writes.size() == 16);
}

TEST_CASE("norandommap draws independently and repeats blocks", "[offset_generator]") {
  constexpr uint64_t kBlocks = 4000;
  JobOptions job = make_job(RwMode::randwrite, kBlocks * 4096);
  job.norandommap = true;
  OffsetGenerator g(job, 5);
  std::set<uint64_t> seen;
  for (const auto& io : take(g, kBlocks)) {
    CHECK(io.is_write);
    CHECK(io.offset % 4096 == 0);
    CHECK(io.offset < kBlocks * 4096);
    seen.insert(io.offset);
  }
  // n draws over n blocks hit about n(1 - 1/e) = 63% of them.
  CHECK(seen.size() > kBlocks * 58 / 100);
  CHECK(seen.size() < kBlocks * 68 / 100);
}

TEST_CASE("zipf and pareto skew hits the way fio's do", "[offset_generator][distribution]") {
  // Reference: fio 3.33, 64 MiB region, bs=4k (16384 blocks), ~2M I/Os from
  // write_iolog; share of I/Os on the hottest 10% of blocks.
  struct Case {
    Distribution d;
    double param;
    double fio_top10;
  };
  const Case cases[] = {
      {Distribution::zipf, 1.2, 0.919},
      {Distribution::zipf, 0.8, 0.582},
      {Distribution::pareto, 0.2, 0.727},
      {Distribution::pareto, 0.5, 0.116},  // h=0.5 makes fio's pareto uniform
  };
  for (const auto& c : cases) {
    INFO(to_string(c.d) << ":" << c.param);
    JobOptions job = make_job(RwMode::randread, 16384 * 4096);
    job.random_distribution = c.d;
    job.distribution_param = c.param;
    Shape s = shape(job, 3, 400'000);
    CHECK(s.top10 == Approx(c.fio_top10).margin(0.03));
    if (c.fio_top10 > 0.5) CHECK(s.top10 > 0.5);  // the hot 10% gets most hits
  }
  // Uniform for comparison: the hottest 10% get little more than 10%.
  JobOptions uniform = make_job(RwMode::randread, 16384 * 4096);
  uniform.norandommap = true;
  CHECK(shape(uniform, 3, 400'000).top10 < 0.15);
}

TEST_CASE("normal concentrates hits on few blocks, spread as fio spreads them",
          "[offset_generator][distribution]") {
  // fio 3.33 reference (same setup as above): top-10% share 0.448 for
  // normal, 0.426 for normal:10, 0.209 for normal:50. fio hashes the drawn
  // rank like zipf's, so the hot blocks are scattered and the middle 20% of
  // the region gets 20% of the I/Os, as with fio.
  struct Case {
    double dev;
    double fio_top10;
  };
  for (const Case c : {Case{0, 0.448}, Case{10, 0.426}, Case{50, 0.209}}) {
    INFO("normal:" << c.dev);
    JobOptions job = make_job(RwMode::randread, 16384 * 4096);
    job.random_distribution = Distribution::normal;
    job.distribution_param = c.dev;
    Shape s = shape(job, 8, 400'000);
    CHECK(s.top10 == Approx(c.fio_top10).margin(0.03));
    CHECK(s.middle20 == Approx(0.2).margin(0.03));
  }
  // The narrower the deviation, the fewer blocks it touches.
  JobOptions narrow = make_job(RwMode::randread, 16384 * 4096);
  narrow.random_distribution = Distribution::normal;
  JobOptions wide = narrow;
  wide.distribution_param = 50;
  CHECK(shape(narrow, 8, 200'000).distinct < shape(wide, 8, 200'000).distinct);
}

TEST_CASE("skewed distributions stay inside small regions", "[offset_generator][distribution]") {
  for (Distribution d : {Distribution::zipf, Distribution::pareto, Distribution::normal}) {
    for (uint64_t blocks : {1, 2, 3, 7}) {
      INFO(to_string(d) << " over " << blocks << " blocks");
      JobOptions job = make_job(RwMode::randwrite, blocks * 4096, 4096, 8192);
      job.random_distribution = d;
      job.distribution_param = d == Distribution::zipf ? 1.1 : d == Distribution::pareto ? 0.2 : 10;
      job.distribution_center = 0.5;
      OffsetGenerator g(job, 1);
      for (const auto& io : take(g, 200)) {
        CHECK(io.offset >= 8192);
        CHECK(io.offset + io.length <= 8192 + blocks * 4096);
      }
    }
  }
}

TEST_CASE("rwmix picks the direction per I/O by rwmixread", "[offset_generator]") {
  for (RwMode rw : {RwMode::randrw, RwMode::readwrite}) {
    JobOptions job = make_job(rw, 1 << 24);
    job.rwmixread = 70;
    OffsetGenerator g(job, 17);
    constexpr int kIos = 100'000;
    int reads = 0;
    for (const auto& io : take(g, kIos)) reads += !io.is_write;
    CHECK(reads / double(kIos) == Approx(0.70).margin(0.01));
  }
  JobOptions all_reads = make_job(RwMode::randrw, 1 << 20);
  all_reads.rwmixread = 100;
  OffsetGenerator r(all_reads, 1);
  for (const auto& io : take(r, 1000)) CHECK_FALSE(io.is_write);
  JobOptions all_writes = all_reads;
  all_writes.rwmixread = 0;
  OffsetGenerator w(all_writes, 1);
  for (const auto& io : take(w, 1000)) CHECK(io.is_write);
}

TEST_CASE("same seed, same sequence; another seed, another", "[offset_generator]") {
  auto seq = [](const JobOptions& job, uint64_t seed) {
    OffsetGenerator g(job, seed);
    std::vector<std::pair<uint64_t, bool>> v;
    for (const auto& io : take(g, 5000)) v.emplace_back(io.offset, io.is_write);
    return v;
  };
  std::vector<JobOptions> jobs;
  jobs.push_back(make_job(RwMode::randrw, 1 << 26));
  jobs.push_back(make_job(RwMode::randread, 1 << 26));
  jobs.back().norandommap = true;
  for (Distribution d : {Distribution::zipf, Distribution::pareto, Distribution::normal}) {
    jobs.push_back(make_job(RwMode::randrw, 1 << 26));
    jobs.back().random_distribution = d;
    jobs.back().distribution_param = d == Distribution::zipf ? 1.2 : d == Distribution::pareto ? 0.3 : 5;
  }
  jobs.push_back(make_job(RwMode::readwrite, 1 << 26));
  for (const auto& job : jobs) {
    INFO(to_string(job.rw) << " " << to_string(job.random_distribution));
    CHECK(seq(job, 1234) == seq(job, 1234));
    CHECK(seq(job, 1234) != seq(job, 1235));
  }
}

TEST_CASE("job_seed follows randrepeat and randseed", "[offset_generator]") {
  JobOptions job;
  CHECK(job_seed(job, 1) == job_seed(job, 1));  // randrepeat=1: reruns repeat
  CHECK(job_seed(job, 1) != job_seed(job, 2));  // clones differ
  JobOptions other = job;
  other.randseed = 99;
  other.randseed_given = true;
  CHECK(job_seed(other, 1) != job_seed(job, 1));
  other.randrepeat = false;  // an explicit randseed stays repeatable
  CHECK(job_seed(other, 1) == job_seed(other, 1));
  JobOptions fresh = job;
  fresh.randrepeat = false;  // no seed given: new each run
  CHECK(job_seed(fresh, 1) != job_seed(fresh, 1));
}

TEST_CASE("the generator refuses a job that is not resolved", "[offset_generator]") {
  // No exception (a job thread has nobody to catch it): status() says why
  // and the generator hands out nothing.
  auto refused = [](const JobOptions& j, const char* why) {
    OffsetGenerator g(j, 1);
    REQUIRE_FALSE(g.status().ok());
    CHECK(g.status().error().code == rs::Errc::invalid_argument);
    CHECK(g.status().error().message.find(why) != std::string::npos);
    CHECK(g.next().length == 0);
  };
  refused(make_job(RwMode::read, 0), "not resolved");
  JobOptions percent = make_job(RwMode::read, 1 << 20);
  percent.size_percent = 50;
  refused(percent, "not resolved");
  JobOptions too_big = make_job(RwMode::randwrite, 4096);
  too_big.bs = {4096, 8192};
  refused(too_big, "does not fit in size 4096");
}

TEST_CASE("the block map finds the next free block, wrapping, and marks runs up to a done block",
          "[offset_generator][block_map]") {
  BlockMap m;
  m.reset(130);  // two full words and two blocks of a third
  CHECK(m.set_run(0, 64) == 64);
  CHECK(m.set_run(60, 10) == 0);  // block 60 is done
  CHECK(m.set_run(66, 3) == 3);   // 66, 67, 68
  CHECK(m.set_run(64, 5) == 2);   // 64, 65: stops at 66
  CHECK(m.next_free(0) == 69);    // skips the full first word
  CHECK(m.next_free(129) == 69);  // past the end: wraps to the start
  CHECK(m.set_run(128, 5) == 2);  // the map ends at 130
  CHECK(m.next_free(127) == 69);
  CHECK(m.set_run(69, 59) == 59);  // 69..127: now everything is done
  CHECK(m.full());
  CHECK(m.next_free(5) == BlockMap::kNone);
  m.clear();
  CHECK(!m.full());
  CHECK(m.next_free(129) == 0);
}

TEST_CASE("variable sizes on the random map: a pass does every byte once, I/Os cut where blocks are done",
          "[offset_generator][block_map]") {
  // fio's mark_random_map: a drawn block already done moves to the next free
  // one, and a 16k I/O that runs into done blocks is cut to the free run.
  const uint64_t units = 1024;  // 4 MiB in 4k blocks
  JobOptions j = make_job(RwMode::randread, units * 4096);
  j.bssplit[kDdirRead] = {{16384, 50}, {4096, 50}};
  j.bssplit[kDdirWrite] = j.bssplit[kDdirRead];
  j.bs_max = {16384, 16384};
  OffsetGenerator g(j, 11);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<int> hits(units);
    uint64_t bytes = 0;
    int cut = 0, ios = 0;
    while (bytes < j.size) {
      const IoRequest r = g.next();
      REQUIRE(r.offset % 4096 == 0);
      REQUIRE(r.length % 4096 == 0);
      REQUIRE(r.length >= 4096);
      REQUIRE(r.length <= 16384);
      REQUIRE(r.offset + r.length <= j.size);
      for (uint64_t b = r.offset / 4096; b < (r.offset + r.length) / 4096; ++b) ++hits[b];
      cut += r.length == 8192 || r.length == 12288;
      bytes += r.length;
      ++ios;
    }
    CHECK(bytes == j.size);  // the pass ends exactly at the region's size
    CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
    CHECK(cut > 0);  // some 16k draws met done blocks
    // Uncut, 4 MiB in 16k and 4k halves (10k on average) takes 409.6 I/Os,
    // give or take 12 (one standard deviation); every cut adds to that.
    CHECK(ios > 410 + 3 * 12);
    INFO("pass " << pass << ": " << ios << " I/Os, " << cut << " cut");
  }
}

TEST_CASE("sequential variable sizes: the last I/O of a pass fits the region's end", "[offset_generator]") {
  // fio's get_next_buflen draws a length that fits what is left of the file
  // (io_u_fits), so a pass of bsrange=512-4k over 1 MiB ends exactly at
  // 1 MiB with every sector done once (fio's t0024 bsrange).
  JobOptions j = make_job(RwMode::write, 1 << 20, 512);
  j.bs_max = {4096, 4096};
  OffsetGenerator g(j, 5);
  uint64_t next = 0;
  while (next < j.size) {
    const IoRequest r = g.next();
    REQUIRE(r.offset == next);  // no wrap before the end
    REQUIRE(r.length % 512 == 0);
    REQUIRE(r.offset + r.length <= j.size);
    next += r.length;
  }
  CHECK(next == j.size);
  CHECK(g.next().offset == 0);  // the next pass starts over
}
