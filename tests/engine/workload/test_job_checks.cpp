// The checks every job gets against its target before it runs
// (workload/job_checks.hpp), whatever front end built it.
#include <catch2/catch.hpp>
#include <cstdint>

#include "workload/job_checks.hpp"

using namespace rs::workload;

TEST_CASE("validate_against_target resolves and checks the region", "[job_checks]") {
  constexpr uint64_t kTarget = 1ULL << 30;
  SECTION("defaults: the whole target") {
    JobOptions j;
    CHECK(validate_against_target(j, kTarget, 512).empty());
    CHECK(j.offset == 0);
    CHECK(j.size == kTarget);
  }
  SECTION("size 0 with an offset: up to the end") {
    JobOptions j;
    j.offset = 1 << 20;
    CHECK(validate_against_target(j, kTarget, 512).empty());
    CHECK(j.size == kTarget - (1 << 20));
  }
  SECTION("percentages, offset aligned down to the block size") {
    JobOptions j;
    j.bs = {65536, 65536};
    j.size_percent = 50;
    j.offset_percent = 10;
    CHECK(validate_against_target(j, kTarget, 512).empty());
    CHECK(j.offset == (kTarget / 10) / 65536 * 65536);
    CHECK(j.size == kTarget / 2);
    CHECK(j.size_percent == 0);
    CHECK(j.offset_percent == 0);
  }
  SECTION("percent size is cut at the end of the target") {
    JobOptions j;
    j.offset = kTarget - (1 << 20);
    j.size_percent = 50;
    CHECK(validate_against_target(j, kTarget, 512).empty());
    CHECK(j.size == 1 << 20);
  }
  SECTION("region past the end") {
    JobOptions j;
    j.name = "x";
    j.offset = kTarget - 4096;
    j.size = 8192;
    CHECK_THAT(validate_against_target(j, kTarget, 512), Catch::Contains("runs past the end of the target"));
    j.offset = kTarget;
    CHECK_THAT(validate_against_target(j, kTarget, 512), Catch::Contains("at or beyond the end"));
  }
  SECTION("bs larger than the target") {
    JobOptions j;
    j.name = "big";
    j.bs = {1 << 20, 1 << 20};
    CHECK(validate_against_target(j, 512 * 1024, 512) == "job 'big': bs 1MiB is larger than size 512KiB");
  }
  SECTION("direct=1 needs bs and offset aligned to the block size") {
    JobOptions j;
    j.name = "d";
    j.origin = "jobs.fio";
    j.line = 3;
    j.direct = true;
    j.bs = {4096, 4096};
    CHECK(validate_against_target(j, kTarget, 4096).empty());
    JobOptions odd = j;
    odd.bs = {512, 512};
    CHECK(
        validate_against_target(odd, kTarget, 4096) ==
        "job 'd' (jobs.fio:3): direct=1 needs bs to be a multiple of the target's block size 4096, got 512");
    JobOptions off = j;
    off.offset = 512;
    off.size = 0;
    CHECK_THAT(validate_against_target(off, kTarget, 4096), Catch::Contains("offset to be a multiple"));
    JobOptions buffered = odd;
    buffered.direct = false;
    CHECK(validate_against_target(buffered, kTarget, 4096).empty());
  }
}

TEST_CASE("format_size: the largest binary unit that divides the size", "[job_checks]") {
  CHECK(format_size(4096) == "4KiB");
  CHECK(format_size(1 << 20) == "1MiB");
  CHECK(format_size(3ull << 30) == "3GiB");
  CHECK(format_size(1000) == "1000B");
  CHECK(format_size(0) == "0B");
  CHECK(format_size(6144) == "6KiB");
}
