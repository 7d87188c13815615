// The option table (fio/option_table.hpp) is data: every row says what it
// sets and how, and apply_option() does what the row says. These check the
// rows themselves; test_job_parser.cpp checks each option's values.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "fio/option_table.hpp"

using namespace rs::fio;
using rs::workload::JobOptions;

TEST_CASE("every option row has a unique name, its field or parser, and help", "[fio][options]") {
  std::set<std::string> names;
  for (const OptionDef& o : option_table()) {
    INFO("option " << o.name);
    CHECK(!o.name.empty());
    CHECK(names.insert(std::string(o.name)).second);
    if (!o.alias.empty()) CHECK(names.insert(std::string(o.alias)).second);
    CHECK(!o.help.empty());
    // A row sets exactly what its type names.
    const int fields = int(o.text != nullptr) + int(o.flag != nullptr) + int(o.count != nullptr) +
                       int(o.bytes != nullptr) + int(o.duration != nullptr) + int(o.parse != nullptr);
    CHECK(fields == 1);
    switch (o.type) {
      case OptionType::text:
        CHECK(o.text);
        break;
      case OptionType::flag:
        CHECK(o.flag);
        break;
      case OptionType::count:
        CHECK(o.count);
        CHECK(o.min <= o.max);
        break;
      case OptionType::size:
        CHECK(o.bytes);
        break;
      case OptionType::time:
        CHECK(o.duration);
        break;
      case OptionType::custom:
        CHECK(o.parse);
        break;
    }
    CHECK(find_option(o.name) == &o);
    if (!o.alias.empty()) CHECK(canonical_option_name(o.alias) == o.name);
  }
  CHECK(names.size() > 100);
}

TEST_CASE("typed rows are applied from the table: ranges, units, bare flags", "[fio][options]") {
  JobOptions job;
  // count: iodepth is 1..65535 (fio's range), the message names the option.
  REQUIRE(apply_option(job, "iodepth", "32"));
  CHECK(job.iodepth == 32);
  rs::Status st = apply_option(job, "iodepth", "0");
  REQUIRE_FALSE(st);
  CHECK(st.error().code == rs::Errc::invalid_argument);
  CHECK(st.error().message == "iodepth must be at least 1 (got '0')");
  CHECK(job.iodepth == 32);  // unchanged
  // time: runtime in seconds without a unit, thinktime in microseconds.
  REQUIRE(apply_option(job, "runtime", "3"));
  CHECK(job.runtime == std::chrono::seconds(3));
  REQUIRE(apply_option(job, "thinktime", "3"));
  CHECK(job.thinktime == std::chrono::microseconds(3));
  // size, through an alias.
  REQUIRE(apply_option(job, "io_limit", "1m"));
  CHECK(job.io_size == 1u << 20);
  // A bare flag is 1; a bare option that is not value-optional is refused.
  REQUIRE(apply_option(job, "time_based", std::nullopt));
  CHECK(job.time_based);
  st = apply_option(job, "direct", std::nullopt);
  REQUIRE_FALSE(st);
  CHECK(st.error().message == "option 'direct' requires a value (direct=...)");
  // A bare log option keeps the job's name as prefix (empty), a value is the prefix.
  REQUIRE(apply_option(job, "write_bw_log", std::nullopt));
  CHECK(job.bw_log);
  CHECK(job.bw_log_prefix.empty());
  REQUIRE(apply_option(job, "write_lat_log", "p"));
  CHECK(job.lat_log_prefix == "p");
  // Only filename_format may hold fio's $keywords.
  REQUIRE(apply_option(job, "filename_format", "$jobname.$filenum"));
  CHECK_FALSE(apply_option(job, "filename", "$jobname"));
  st = apply_option(job, "no_such_option", "1");
  REQUIRE_FALSE(st);
  CHECK(st.error().message == "unsupported option 'no_such_option'");
}
