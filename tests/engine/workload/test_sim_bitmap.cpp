// The write-intent bitmap in virtual time: seed 001's array (a RAID10 of
// four D7-P5520, 64 MiB bitmap chunks: 57228 bits, the last page 3314
// bytes), 4k random writes at depth 1, with and without io_opt sizing of
// the last page.
#include <catch2/catch.hpp>

#include "../../common/result_helpers.hpp"
#include "fio/job_parser.hpp"
#include "fio/log_files.hpp"
#include "io/device_profile.hpp"
#include "layout/layout_names.hpp"
#include "scenario/scenario.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;
using namespace rs::scenario;

namespace {

struct Outcome {
  double iops = 0;
  std::map<uint32_t, uint64_t> page_writes;  // bytes -> count
};

Outcome run_seed001(bool io_opt_sizing, const std::string& offset) {
  std::string err;
  auto profile = io::find_profile("nvme-p5520", {std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/profiles"});
  INFO(rs::test::error_text(profile));
  REQUIRE(profile);
  raid::Shape shape;
  shape.level = 10;
  shape.raid_disks = 4;
  shape.layout = *layout::parse_raid10_layout("n2", 4);
  shape.chunk_sectors = 1024;
  // The seed's array holds 57228 bits of 64 MiB: each member gives half of
  // that (n2), a little under its capacity once mdadm's data offset is taken.
  shape.dev_sectors = 57228ull * (64ull << 20) / 512 / 2;
  REQUIRE(shape.dev_sectors * 512 <= profile->capacity_bytes);
  std::vector<std::shared_ptr<io::DeviceModel>> models;
  for (int i = 0; i < 4; ++i) models.push_back(rs::test::must(io::make_model(*profile)));
  auto made = SimArrayTarget::make(shape, models, 64u << 20);
  INFO((made ? std::string() : made.error().message));
  REQUIRE(made.ok());
  SimArrayTarget& target = **made;
  // Hand computation: 3.84 TB / 64 MiB = 57228 bits; 256 + 57228/8 = 7410
  // bytes, so the second (last) page holds 3314 bytes.
  REQUIRE(target.array().bitmap()->chunks() == 57228);
  REQUIRE(target.array().bitmap()->page_bytes(1) == 3314);
  REQUIRE(target.array().tunables().set("bitmap_io_opt", io_opt_sizing ? "on" : "off").ok());
  auto parsed = parse_cli_job({"--name=seed001", "--rw=randwrite", "--bs=4k", "--iodepth=1", "--direct=1",
                               "--time_based", "--runtime=2", "--offset=" + offset, "--randrepeat=1"});
  INFO(rs::test::error_text(parsed));
  REQUIRE(parsed.ok());
  REQUIRE(check_jobs(parsed->jobs, target).empty());
  RunOutcome run = run_jobs(parsed->jobs, parsed->global.given, target, nullptr, rs::fio::open_job_logs);
  REQUIRE(run.results.jobs.size() == 1);
  const auto& w = run.results.jobs[0].write;
  Outcome o;
  o.iops = double(w.total_ios) / (double(run.results.jobs[0].job_runtime_ns) / 1e9);
  o.page_writes = target.array().bitmap()->write_sizes();
  return o;
}

}  // namespace

TEST_CASE("seed 001 in virtual time: io_opt sizing of the last bitmap page lifts 4k randwrite IOPS",
          "[workload][bitmap][seed001]") {
  // Writes into the chunks the last page covers (chunk 30720 on: past
  // (4096 - 256) x 8 bits), as the seed's fio run did (its biosnoop shows
  // only the last page being written).
  const std::string last_page_region = std::to_string(30720ull * (64ull << 20));
  const Outcome before = run_seed001(false, last_page_region);
  const Outcome after = run_seed001(true, last_page_region);
  INFO("IOPS off " << before.iops << ", on " << after.iops);
  // The seed: 1676 -> 15.7k IOPS. The acceptance: x5 or more.
  CHECK(after.iops >= 5 * before.iops);
  // The last page's writes: 3584 bytes (3314 rounded to 512-byte sectors)
  // before, 4096 (io_opt) after; nothing else is written.
  CHECK(before.page_writes.count(3584) == 1);
  CHECK(before.page_writes.count(4096) == 0);
  CHECK(after.page_writes.count(4096) == 1);
  CHECK(after.page_writes.count(3584) == 0);
}

TEST_CASE("simulate --scenario=seed-md-bitmap-io-opt: x5 IOPS, last-page writes 3584 -> 4096 bytes",
          "[workload][bitmap][seed001][scenario]") {
  const std::string source = RAIDSCOPE_SOURCE_DIR;
  std::string err;
  auto sc = find_scenario("seed-md-bitmap-io-opt", {source + "/resources/scenarios"});
  if (!sc) err = sc.error().message;
  INFO(err);
  REQUIRE(sc);
  CHECK(sc->policy_tunable == "bitmap_io_opt");
  auto rows = run_scenario(*sc, {}, {source + "/resources/profiles"});
  if (!rows) err = rows.error().message;
  INFO(err);
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  const auto& r = (*rows)[0];
  INFO("IOPS off " << r.before.iops << ", on " << r.after.iops);
  CHECK(r.after.iops >= 5 * r.before.iops);
  CHECK(r.before.section("bitmap.writes_3584_total") > 0);
  CHECK(r.before.section("bitmap.writes_4096_total") == 0);
  CHECK(r.after.section("bitmap.writes_4096_total") > 0);
  CHECK(r.after.section("bitmap.writes_3584_total") == 0);
}
