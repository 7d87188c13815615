// to_json_line(): the --telemetry JSON-lines schema, parsed back field by field.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scripted_source.hpp"
#include "telemetry/sample.hpp"

using namespace rs::telemetry;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::vector<std::string> keys_of(const ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

Sample hand_made() {
  Sample s;
  s.seq = 3;
  s.t_ns = 1'500'000'000;
  s.interval_ns = 100'000'000;
  MemberSample a;
  a.name = "m0.img";
  a.state = "active sync";
  a.reads = 30;
  a.writes = 5;
  a.read_bytes = 122880;
  a.write_bytes = 40960;
  a.errors = 2;
  a.read_errors = 1;
  a.corrected_errors = 8;
  a.nr_pending = 4;
  a.avg_pending = 2.5;
  a.read_share = 0.75;
  MemberSample b;
  b.name = "m1.img";
  b.state = "faulty";
  b.reads = 10;
  b.read_share = 0.25;
  s.members = {a, b};
  s.array.read_iops = 400;
  s.array.write_iops = 100;
  s.array.read_bw_bytes = 1638400;
  s.array.write_bw_bytes = 819200;
  s.array.clat_p50_ns = 1004;
  s.array.clat_p99_ns = 49920;
  s.array.clat_samples = 100;
  s.array.tasks = {{"rebuild", "m2.img", 1048576, 1073741824}};
  s.sections = {{"raid5", {{"stripes_active", 12}, {"bypass_count", 3}}}, {"bitmap", {{"dirty_bits", 7}}}};
  s.events = {{.seq = 4, .t_ns = 1'250'000'000, .kind = "tunable", .name = "rd1/write_mostly", .value = "on"},
              {.seq = 5,
               .t_ns = 1'400'000'000,
               .kind = "member",
               .name = "m1.img",
               .value = "faulty",
               .message = "read error at sector 2048"}};
  return s;
}

}  // namespace

TEST_CASE("a sample is one JSON line in the documented schema", "[json]") {
  const std::string line = to_json_line(hand_made());
  CHECK(line.find('\n') == std::string::npos);
  const ordered_json j = ordered_json::parse(line);

  CHECK(keys_of(j) == std::vector<std::string>{"t", "members", "array", "sections", "events"});
  CHECK(j["t"].get<double>() == 1.5);

  REQUIRE(j["members"].size() == 2);
  const auto& a = j["members"][0];
  CHECK(keys_of(a) == std::vector<std::string>{"name", "reads", "writes", "read_bytes", "write_bytes",
                                               "nr_pending", "avg_pending", "read_share", "state", "errors",
                                               "read_errors", "corrected_errors"});
  CHECK(a["name"] == "m0.img");
  CHECK(a["reads"] == 30);
  CHECK(a["writes"] == 5);
  CHECK(a["read_bytes"] == 122880);
  CHECK(a["write_bytes"] == 40960);
  CHECK(a["nr_pending"] == 4);
  CHECK(a["avg_pending"].get<double>() == 2.5);
  CHECK(a["read_share"].get<double>() == 0.75);
  CHECK(a["state"] == "active sync");
  CHECK(a["errors"] == 2);
  CHECK(a["read_errors"] == 1);
  CHECK(a["corrected_errors"] == 8);
  CHECK(j["members"][1]["state"] == "faulty");
  CHECK(j["members"][1]["read_share"].get<double>() == 0.25);

  const auto& arr = j["array"];
  CHECK(keys_of(arr) == std::vector<std::string>{"read_iops", "read_bw_bytes", "write_iops", "write_bw_bytes",
                                                 "clat_p50_ns", "clat_p99_ns", "tasks"});
  CHECK(arr["read_iops"].get<double>() == 400);
  CHECK(arr["read_bw_bytes"].get<double>() == 1638400);
  CHECK(arr["write_iops"].get<double>() == 100);
  CHECK(arr["write_bw_bytes"].get<double>() == 819200);
  CHECK(arr["clat_p50_ns"] == 1004);
  CHECK(arr["clat_p99_ns"] == 49920);
  REQUIRE(arr["tasks"].size() == 1);
  CHECK(json(arr["tasks"][0]) ==
        json{{"kind", "rebuild"}, {"target", "m2.img"}, {"done", 1048576}, {"total", 1073741824}});

  CHECK(json(j["sections"]) ==
        json{{"raid5", {{"stripes_active", 12}, {"bypass_count", 3}}}, {"bitmap", {{"dirty_bits", 7}}}});

  REQUIRE(j["events"].size() == 2);
  const auto& tunable = j["events"][0];
  CHECK(keys_of(tunable) == std::vector<std::string>{"t", "tunable", "value"});
  CHECK(tunable["t"].get<double>() == 1.25);
  CHECK(tunable["tunable"] == "rd1/write_mostly");
  CHECK(tunable["value"] == "on");
  const auto& failed = j["events"][1];
  CHECK(keys_of(failed) == std::vector<std::string>{"t", "kind", "name", "value", "message"});
  CHECK(failed["t"].get<double>() == 1.4);
  CHECK(failed["kind"] == "member");
  CHECK(failed["name"] == "m1.img");
  CHECK(failed["value"] == "faulty");
  CHECK(failed["message"] == "read error at sector 2048");
}

TEST_CASE("an empty sample still has every top-level field", "[json]") {
  const auto j = json::parse(to_json_line(Sample{}));
  CHECK(j["t"].get<double>() == 0);
  CHECK(j["members"] == json::array());
  CHECK(j["array"]["tasks"] == json::array());
  CHECK(j["array"]["clat_p99_ns"] == 0);
  CHECK(j["sections"] == json::object());
  CHECK(j["events"] == json::array());
}

TEST_CASE("a member path that is not UTF-8 does not break the line", "[json]") {
  Sample s;
  s.members.resize(1);
  s.members[0].name = "m\xff.img";
  std::string line;
  REQUIRE_NOTHROW(line = to_json_line(s));
  CHECK(json::parse(line)["members"][0]["name"] == "m\xEF\xBF\xBD.img");  // U+FFFD
}

TEST_CASE("a sampler's sample round-trips through its JSON line", "[json]") {
  rs::telemetry::testing::ManualClock clock{1'000'000'000};
  rs::telemetry::testing::ScriptedSource src;
  src.member("a");
  SamplerOptions o;
  o.clock_ns = clock.fn();
  Sampler sampler(src, nullptr, nullptr, o);
  sampler.begin();
  src.member("a").reads = 8;
  src.array.reads = 8;
  clock.now += 250'000'000;
  const auto j = json::parse(to_json_line(*sampler.sample_now()));
  CHECK(j["t"].get<double>() == 0.25);
  CHECK(j["members"][0]["reads"] == 8);
  CHECK(j["members"][0]["read_share"].get<double>() == 1.0);
  CHECK(j["array"]["read_iops"].get<double>() == 32);
}
