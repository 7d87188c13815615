// fio's read_iolog: a job replays the reads and writes an iolog recorded,
// in the log's order, at its offsets and lengths (fio iolog.c read_iolog);
// a version 3 log at its own pace unless replay_no_stall=1.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "../../common/temp_dir.hpp"
#include "fio_run_on_file.hpp"
#include "workload/replay_log.hpp"

using namespace rs;
using namespace rs::workload;

namespace {

struct Logged {
  std::string action;
  uint64_t offset;
  uint32_t length;
  bool operator==(const Logged&) const = default;
};

// The I/O lines of a version 3 iolog, in order.
std::vector<Logged> logged_ios(const std::string& path) {
  std::vector<Logged> out;
  for (const auto& l : fio_test::iolog_lines(path)) out.push_back({l.action, l.offset, l.length});
  return out;
}

}  // namespace

TEST_CASE("read_iolog: versions 2 and 3 read as fio reads them", "[replay]") {
  auto v2 = parse_replay_log(
      "fio version 2 iolog\n/f add\n/f open\n/f write 8192 4096\n/f read 0 512\n/f close\n", "a.log");
  REQUIRE(v2.ok());
  CHECK(v2->file == "/f");
  REQUIRE(v2->entries.size() == 2);
  CHECK(v2->entries[0].write);
  CHECK(v2->entries[0].offset == 8192);
  CHECK(v2->entries[0].length == 4096);
  CHECK_FALSE(v2->entries[1].write);
  auto v3 =
      parse_replay_log("fio version 3 iolog\n10 f add\n15 f read 4096 4096\n2015 f read 0 4096\n", "b.log");
  REQUIRE(v3.ok());
  CHECK(v3->entries[1].at_us == 2015);
}

TEST_CASE("read_iolog: what is not replayed is refused, naming the option", "[replay]") {
  auto trim = parse_replay_log("fio version 2 iolog\nf trim 0 4096\n", "t.log");
  REQUIRE_FALSE(trim.ok());
  CHECK_THAT(trim.error().message, Catch::Contains("read_iolog=t.log:2") && Catch::Contains("trim"));
  auto two = parse_replay_log("fio version 2 iolog\nf read 0 4096\ng read 0 4096\n", "t.log");
  REQUIRE_FALSE(two.ok());
  CHECK_THAT(two.error().message, Catch::Contains("several files"));
  CHECK_FALSE(parse_replay_log("blktrace junk\n", "t.log").ok());
  CHECK_FALSE(parse_replay_log("fio version 2 iolog\nf add\n", "t.log").ok());  // nothing to replay
}

TEST_CASE("read_iolog replays the logged offsets in order, at depth", "[replay]") {
  test::TempDir dir("rs-replay");
  const std::string file = dir.file("data"), log = dir.file("in.log"), again = dir.file("out.log");
  fio_test::write_filled_file(file, 1 << 20);
  // A hand-made order no generator gives: backwards, mixed sizes and directions.
  const std::vector<Logged> want = {{"read", 900 << 10, 4096},
                                    {"write", 12288, 8192},
                                    {"read", 4096, 512},
                                    {"read", 0, 65536},
                                    {"write", 512 << 10, 4096}};
  {
    std::ofstream out(log);
    out << "fio version 2 iolog\n" << file << " add\n" << file << " open\n";
    for (const auto& w : want) out << file << " " << w.action << " " << w.offset << " " << w.length << "\n";
    out << file << " close\n";
  }
  auto run = fio_test::run_bench({"--name=replay", "--read_iolog=" + log, "--iodepth=4", "--ioengine=libaio",
                                  "--write_iolog=" + again, "--size=1m"});
  const JobResults& j = run.out.results.jobs[0];
  CHECK(j.read.total_ios == 3);
  CHECK(j.write.total_ios == 2);
  CHECK(j.read.io_bytes == 4096 + 512 + 65536);
  CHECK(logged_ios(again) == want);
}

TEST_CASE("read_iolog version 3 keeps the log's pace", "[replay]") {
  test::TempDir dir("rs-replay");
  const std::string file = dir.file("data"), log = dir.file("in.log");
  fio_test::write_filled_file(file, 1 << 20);
  {
    std::ofstream out(log);
    out << "fio version 3 iolog\n1000 " << file << " read 0 4096\n301000 " << file << " read 4096 4096\n";
  }
  auto paced = fio_test::run_bench({"--name=r", "--read_iolog=" + log, "--filename=" + file});
  // The second read waits 300 ms after the first, as logged.
  CHECK(paced.out.results.jobs[0].read.runtime_ns >= 300'000'000u);
  auto fast =
      fio_test::run_bench({"--name=r", "--read_iolog=" + log, "--filename=" + file, "--replay_no_stall=1"});
  CHECK(fast.out.results.jobs[0].read.total_ios == 2);
  CHECK(fast.out.results.jobs[0].read.runtime_ns < 300'000'000u);
}
