// fio job files and command-line options: sizes and times as fio 3.33 reads
// them (checked against a live fio when installed), the good and bad job
// corpus in tests/fio-jobs and the option lists fio's JSON reports (the
// checks against a target are the driver's: workload/test_job_checks.cpp).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../../common/needs_tool.hpp"
#include "../../common/result_helpers.hpp"
#include "fio/job_parser.hpp"
#include "fio/size_parse.hpp"

using namespace rs::workload;
using namespace rs::fio;
namespace fs = std::filesystem;
using std::chrono::microseconds;
using Options = std::vector<std::pair<std::string, std::string>>;

namespace {

constexpr const char* kFio = "/usr/bin/fio";

fs::path corpus_dir(const char* sub) {
  return fs::path(RAIDSCOPE_SOURCE_DIR) / "tests" / "fio-jobs" / sub;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ParsedJobs parse_good(const char* name) {
  auto r = parse_job_file(read_text(corpus_dir("good") / name), name);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  CHECK(r->warnings.empty());
  return std::move(*r);
}

// Runs a shell command, returns its stdout+stderr and exit status.
std::string run(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  status = pclose(p);
  return out;
}

fs::path temp_file(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("rs_jobs_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

// Values fio 3.33 parsed for option `opt`, in order, from --debug=parse:
// each "__handle_option=OPT, type=..., ptr=TEXT" followed by "ret=0, out=N".
std::vector<std::pair<std::string, uint64_t>> fio_parsed_values(const fs::path& job, const std::string& opt) {
  int status = 0;
  std::string out = run(std::string(kFio) + " --debug=parse --parse-only " + job.string(), status);
  std::vector<std::pair<std::string, uint64_t>> values;
  const std::string handle = "__handle_option=" + opt + ", ";
  std::istringstream lines(out);
  std::string line, pending;
  while (std::getline(lines, line)) {
    if (size_t h = line.find(handle); h != std::string::npos) {
      size_t ptr = line.find("ptr=", h);
      pending = ptr == std::string::npos ? std::string{} : line.substr(ptr + 4);
    } else if (size_t r = line.find("ret=0, out="); r != std::string::npos && !pending.empty()) {
      values.emplace_back(pending, std::stoull(line.substr(r + 11)));
      pending.clear();
    }
  }
  return values;
}

const JobOptions& job_named(const ParsedJobs& r, const std::string& name) {
  for (const auto& j : r.jobs)
    if (j.name == name) return j;
  FAIL("no job named " << name);
  return r.jobs.front();
}

}  // namespace

// ---------------------------------------------------------------- numbers

TEST_CASE("sizes use fio's kb_base=1024 suffix rules", "[job_parser][size]") {
  struct Case {
    const char* text;
    uint64_t bytes;
  };
  // Each value is what `fio --debug=parse` printed for size=TEXT.
  const Case cases[] = {
      {"4096", 4096},       {"4096b", 4096},       {"4096B", 4096},         {"4k", 4096},
      {"4K", 4096},         {"4kb", 4096},         {"4KB", 4096},           {"4ki", 4096},
      {"4Ki", 4096},        {"4kib", 4000},        {"4KiB", 4000},          {"1m", 1048576},
      {"1mi", 1048576},     {"1miB", 1000000},     {"1000ki", 1024000},     {"1g", 1073741824},
      {"2GiB", 2000000000}, {"1t", 1099511627776}, {"1TiB", 1000000000000}, {"1p", 1125899906842624},
      {"0x1000", 4096},     {"0X10", 16},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    NumberResult r = parse_size(c.text);
    REQUIRE(r.ok());
    CHECK(r->value == c.bytes);
    CHECK_FALSE(r->percent);
  }
  NumberResult pct = parse_size("50%", true);
  REQUIRE(pct.ok());
  CHECK(pct->percent);
  CHECK(pct->value == 50);
}

TEST_CASE("sizes fio would misread are refused with a reason", "[job_parser][size]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"4q", "unknown suffix 'q'"},
      {"1.5g", "fractional sizes are not supported"},
      {"-4k", "signed values"},
      {"", "empty size"},
      {"k", "not a number"},
      {"4kbb", "unknown suffix"},
      {"${SIZE}", "variable expansion"},
      {"(1+2)", "arithmetic"},
      {"0x10k", "no suffix is allowed"},
      {"99999999999999999999", "too large"},
      {"20000000p", "too large"},
      {"50%", "percentage is not accepted"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    NumberResult r = parse_size(c.text);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains(c.message));
  }
  CHECK_THAT(parse_size("0%", true).error().message, Catch::Contains("between 1 and 100"));
  CHECK_THAT(parse_size("101%", true).error().message, Catch::Contains("between 1 and 100"));
}

TEST_CASE("times take fio's units and the option's default unit", "[job_parser][time]") {
  using TU = TimeUnit;
  CHECK(parse_time("10", TU::seconds)->value == 10'000'000);
  CHECK(parse_time("10", TU::microseconds)->value == 10);
  CHECK(parse_time("10s", TU::microseconds)->value == 10'000'000);
  CHECK(parse_time("10S", TU::seconds)->value == 10'000'000);
  CHECK(parse_time("10ms", TU::seconds)->value == 10'000);
  CHECK(parse_time("5MS", TU::seconds)->value == 5'000);
  CHECK(parse_time("7msec", TU::seconds)->value == 7'000);
  CHECK(parse_time("100us", TU::seconds)->value == 100);
  CHECK(parse_time("3usec", TU::seconds)->value == 3);
  CHECK(parse_time("1m", TU::seconds)->value == 60'000'000);
  CHECK(parse_time("1h", TU::seconds)->value == 3'600'000'000ULL);
  CHECK(parse_time("2d", TU::seconds)->value == 172'800'000'000ULL);
  CHECK_THAT(parse_time("10sec", TU::seconds).error().message, Catch::Contains("microseconds"));
  CHECK_THAT(parse_time("10min", TU::seconds).error().message, Catch::Contains("write s or m"));
  CHECK_THAT(parse_time("1.5", TU::seconds).error().message, Catch::Contains("fractional"));
  CHECK_THAT(parse_time("10x", TU::seconds).error().message, Catch::Contains("unknown unit"));
}

TEST_CASE("size and time parsing agree with a live fio", "[job_parser][fio][needs-tool]") {
  rs::test::require_tool(kFio, "no live comparison of size and time parsing");
  const std::vector<std::string> sizes = {"4096", "4k",   "4K",   "4kb",    "4KB",  "4ki",    "4Ki",
                                          "4kib", "4KiB", "1m",   "1mi",    "1miB", "1000ki", "1g",
                                          "2GiB", "1t",   "1TiB", "0x1000", "512",  "4096b",  "7M"};
  const std::vector<std::string> runtimes = {"10",    "10s",   "10ms", "5MS", "7msec",
                                             "100us", "3usec", "1m",   "1h",  "2d"};
  const std::vector<std::string> thinktimes = {"3", "10ms", "1s", "250us"};
  std::string text = "[j]\nioengine=null\nrw=read\n";
  for (const auto& s : sizes) text += "size=" + s + "\n";
  for (const auto& t : runtimes) text += "runtime=" + t + "\n";
  for (const auto& t : thinktimes) text += "thinktime=" + t + "\n";
  fs::path job = temp_file("units.fio", text);

  auto fio_sizes = fio_parsed_values(job, "size");
  REQUIRE(fio_sizes.size() == sizes.size());
  for (const auto& [given, fio_value] : fio_sizes) {
    INFO("size=" << given);
    NumberResult ours = parse_size(given);
    REQUIRE(ours.ok());
    CHECK(ours->value == fio_value);
  }
  auto fio_runtimes = fio_parsed_values(job, "runtime");
  REQUIRE(fio_runtimes.size() == runtimes.size());
  for (const auto& [given, fio_value] : fio_runtimes) {
    INFO("runtime=" << given);
    CHECK(parse_time(given, TimeUnit::seconds)->value == fio_value);
  }
  auto fio_think = fio_parsed_values(job, "thinktime");
  REQUIRE(fio_think.size() == thinktimes.size());
  for (const auto& [given, fio_value] : fio_think) {
    INFO("thinktime=" << given);
    CHECK(parse_time(given, TimeUnit::microseconds)->value == fio_value);
  }
  // And through the job parser.
  auto r = parse_job_file(text, "units.fio");
  REQUIRE(r.ok());
  CHECK(r->jobs[0].size == fio_sizes.back().second);
  CHECK(r->jobs[0].runtime.count() == static_cast<int64_t>(fio_runtimes.back().second));
  CHECK(r->jobs[0].thinktime.count() == static_cast<int64_t>(fio_think.back().second));
}

// ---------------------------------------------------------------- good corpus

TEST_CASE("good: global section inherited by several jobs", "[job_parser][corpus]") {
  ParsedJobs r = parse_good("01-global-and-jobs.fio");
  REQUIRE(r.jobs.size() == 3);
  const JobOptions& seq = r.jobs[0];
  CHECK(seq.name == "seq-read");
  CHECK(seq.line == 12);
  CHECK(seq.origin == "01-global-and-jobs.fio");
  CHECK(seq.rw == RwMode::read);
  CHECK(seq.ioengine == IoEngine::io_uring);
  CHECK(seq.direct);
  CHECK(seq.filename == "/dev/md0");
  CHECK(seq.size == (1ULL << 30));
  CHECK(seq.runtime == microseconds(30'000'000));
  CHECK(seq.time_based);
  CHECK(seq.group_reporting);
  CHECK(seq.bs == std::array<uint32_t, 2>{1 << 20, 1 << 20});
  CHECK(seq.iodepth == 16);
  CHECK_FALSE(seq.stonewall);

  const JobOptions& wr = r.jobs[1];
  CHECK(wr.rw == RwMode::write);
  CHECK(wr.stonewall);
  CHECK(wr.bs[kDdirWrite] == 1 << 20);
  CHECK(wr.iodepth == 8);

  const JobOptions& rr = r.jobs[2];
  CHECK(rr.rw == RwMode::randread);
  CHECK(rr.bs[kDdirRead] == 4096);
  CHECK(rr.numjobs == 4);
  CHECK(rr.iodepth == 32);
  CHECK(rr.randrepeat);
  CHECK(rr.randseed == 0x89);
  CHECK_FALSE(rr.norandommap);

  // fio's JSON: the trailing comments are gone; bare flags have no value.
  CHECK(r.global.given == Options{{"ioengine", "io_uring"},
                                  {"direct", "1"},
                                  {"filename", "/dev/md0"},
                                  {"size", "1g"},
                                  {"runtime", "30"},
                                  {"time_based", ""},
                                  {"group_reporting", ""}});
  CHECK(seq.given == Options{{"rw", "read"}, {"bs", "1m"}, {"iodepth", "16"}});
  CHECK(seq.inherited == r.global.given);
}

TEST_CASE("good: per-direction bs, rate and aliases", "[job_parser][corpus]") {
  ParsedJobs r = parse_good("02-bs-per-direction.fio");
  REQUIRE(r.jobs.size() == 2);
  const JobOptions& oltp = r.jobs[0];
  CHECK(oltp.rw == RwMode::randrw);
  CHECK(oltp.rwmixread == 70);
  CHECK(oltp.bs == std::array<uint32_t, 2>{4096, 65536});
  CHECK(oltp.size == 8ULL << 30);
  CHECK(oltp.offset == 1ULL << 30);
  CHECK(oltp.iodepth == 64);
  CHECK(oltp.rate == std::array<uint64_t, 2>{0, 5ULL << 20});  // rate=,5m: writes only
  CHECK(oltp.rate_iops == std::array<uint64_t, 2>{2000, 0});   // rate_iops=2000,: reads only
  CHECK(oltp.thinktime == microseconds(10'000));
  CHECK(oltp.runtime == microseconds(120'000'000));
  CHECK(oltp.ioengine == IoEngine::libaio);

  const JobOptions& heavy = r.jobs[1];
  CHECK(heavy.rw == RwMode::randrw);
  CHECK(heavy.rwmixread == 90);  // rwmixwrite=10
  CHECK(heavy.bs == std::array<uint32_t, 2>{16384, 16384});
  // Aliases are reported under fio's canonical names, as fio's JSON does.
  CHECK(heavy.given ==
        Options{{"rw", "randrw"}, {"rwmixwrite", "10"}, {"bs", "16k"}, {"size", "512m"}, {"iodepth", "4"}});
}

TEST_CASE("good: stonewall groups and time options", "[job_parser][corpus]") {
  ParsedJobs r = parse_good("03-stonewall-groups.fio");
  REQUIRE(r.jobs.size() == 3);
  CHECK_FALSE(r.jobs[0].stonewall);
  CHECK(r.jobs[1].stonewall);  // wait_for_previous
  CHECK(r.jobs[2].stonewall);
  CHECK(r.jobs[1].numjobs == 8);
  CHECK(r.jobs[2].rw == RwMode::readwrite);
  CHECK(r.jobs[2].rwmixread == 50);
  for (const auto& j : r.jobs) {
    CHECK(j.group_reporting);
    CHECK(j.time_based);
    CHECK(j.runtime == microseconds(20'000'000));
    CHECK(j.ramp_time == microseconds(5'000'000));
    CHECK(j.startdelay == microseconds(1'000'000));
  }
  CHECK(r.jobs[1].given.front() == std::pair<std::string, std::string>{"stonewall", ""});
}

TEST_CASE("good: random distributions and seeds", "[job_parser][corpus]") {
  ParsedJobs r = parse_good("04-distributions.fio");
  REQUIRE(r.jobs.size() == 5);
  const auto& zipf = job_named(r, "zipf-hot");
  CHECK(zipf.random_distribution == Distribution::zipf);
  CHECK(zipf.distribution_param == Approx(1.2));
  CHECK(zipf.distribution_center == -1.0);
  CHECK(zipf.randseed == 1234);
  CHECK(zipf.randseed_given);
  const auto& pareto = job_named(r, "pareto-80-20");
  CHECK(pareto.random_distribution == Distribution::pareto);
  CHECK(pareto.distribution_param == Approx(0.9));
  const auto& wide = job_named(r, "normal-wide");
  CHECK(wide.random_distribution == Distribution::normal);
  CHECK(wide.distribution_param == Approx(10.0));
  const auto& quarter = job_named(r, "normal-quarter");
  CHECK(quarter.distribution_param == Approx(5.0));
  CHECK(quarter.distribution_center == Approx(0.25));
  const auto& uniform = job_named(r, "uniform-no-map");
  CHECK(uniform.random_distribution == Distribution::random);
  CHECK(uniform.norandommap);
  CHECK_FALSE(uniform.randrepeat);
  for (const auto& j : r.jobs) {
    CHECK(j.rw == RwMode::randread);
    CHECK(j.size == 10ULL << 30);
  }
}

TEST_CASE("good: verify options", "[job_parser][corpus]") {
  ParsedJobs r = parse_good("05-verify.fio");
  REQUIRE(r.jobs.size() == 3);
  CHECK(r.jobs[0].verify == VerifyKind::crc32c);
  CHECK(r.jobs[0].do_verify);
  CHECK(r.jobs[0].verify_fatal);
  CHECK(r.jobs[1].verify == VerifyKind::md5);
  CHECK_FALSE(r.jobs[1].do_verify);
  CHECK_FALSE(r.jobs[1].verify_fatal);
  CHECK(r.jobs[2].verify == VerifyKind::crc32c);  // crc32c-intel
  CHECK(r.jobs[2].rw == RwMode::readwrite);
  CHECK(r.jobs[2].given.back() == std::pair<std::string, std::string>{"verify", "crc32c-intel"});
}

TEST_CASE("good: a later global section changes only later jobs", "[job_parser][corpus]") {
  ParsedJobs r = parse_good("06-later-global.fio");
  REQUIRE(r.jobs.size() == 3);
  const JobOptions& first = r.jobs[0];
  CHECK(first.name == "first");
  CHECK(first.description == "Runs with the first global section");
  CHECK(first.bs[kDdirWrite] == 8192);
  CHECK(first.ioengine == IoEngine::psync);
  CHECK(first.iodepth == 1);
  CHECK(first.size == 0);
  CHECK(first.size_percent == 50);
  CHECK(first.offset_percent == 10);
  CHECK(first.percentile_list == std::vector<double>{50, 99, 99.9, 99.99});
  CHECK(first.percentile_precision == 2);

  const JobOptions& second = r.jobs[1];
  CHECK(second.name == "renamed-second");  // name= overrides the section name
  CHECK(second.bs[kDdirRead] == 32768);
  CHECK(second.ioengine == IoEngine::null);
  CHECK(second.iodepth == 2);
  CHECK(second.size_percent == 50);  // from the first global section, still in effect
  CHECK(r.jobs[2].iodepth == 1);

  CHECK(first.inherited.size() == 5);
  CHECK(second.inherited.size() == 8);
  CHECK(r.global.given.size() == 8);
  CHECK(r.global.given.back() == std::pair<std::string, std::string>{"iodepth", "2"});
}

TEST_CASE("good: units, hex, bare flags", "[job_parser][corpus]") {
  ParsedJobs r = parse_good("07-units-and-flags.fio");
  REQUIRE(r.jobs.size() == 2);
  const JobOptions& u = r.jobs[0];
  CHECK(u.thread);
  CHECK(u.ioengine == IoEngine::sync);
  CHECK(u.bs[kDdirRead] == 4096);
  CHECK(u.size == 2'000'000'000);  // 2GiB: fio's kb_base=1024 reads IEC forms as powers of ten
  CHECK(u.offset == 1'024'000);
  CHECK(u.norandommap);
  CHECK(u.runtime == microseconds(1'500'000));
  CHECK(u.ramp_time == microseconds(120'000'000));
  CHECK(u.startdelay == microseconds(100));
  CHECK(u.thinktime == microseconds(3));
  CHECK(u.rate == std::array<uint64_t, 2>{1ULL << 20, 512ULL << 10});
  CHECK(u.rate_iops == std::array<uint64_t, 2>{1024, 1024});
  CHECK(u.iodepth == 1024);
  CHECK_FALSE(u.time_based);
  const JobOptions& h = r.jobs[1];
  CHECK(h.size == 1ULL << 40);
  CHECK(h.bs[kDdirWrite] == 4096);
  CHECK(h.runtime == microseconds(3'600'000'000LL));
  CHECK(h.numjobs == 2);
  CHECK(h.ioengine == IoEngine::pvsync);
}

TEST_CASE("every good job file is accepted by fio --parse-only", "[job_parser][corpus][fio]") {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(corpus_dir("good"))) {
    if (entry.path().extension() != ".fio") continue;
    ++files;
    INFO(entry.path().filename().string());
    auto ours = parse_job_file(read_text(entry.path()), entry.path().filename().string());
    INFO(rs::test::error_text(ours));
    CHECK(ours.ok());
    if (rs::test::tool_installed(kFio)) {
      int status = 0;
      std::string out = run(std::string(kFio) + " --parse-only " + entry.path().string(), status);
      INFO(out);
      CHECK(status == 0);
    }
  }
  CHECK(files >= 6);
  if (!rs::test::tool_installed(kFio))
    WARN("fio not installed at " << kFio << ": only our parser checked the good corpus");
}

TEST_CASE("the job options we keep match fio's JSON report", "[job_parser][fio][needs-tool]") {
  rs::test::require_tool(kFio, "JSON option lists not compared");
  const std::string text =
      "; options lists as fio's JSON reports them\n"
      "[global]\n"
      "ioengine=null\n"
      "size=256k   ; trailing comment\n"
      "time_based=0\n"
      "[one]\n"
      "readwrite=randrw\n"
      "blocksize=8k,4k\n"
      "rwmixwrite=30\n"
      "group_reporting\n"
      "[global]\n"
      "iodepth=2\n"
      "[two]\n"
      "name=renamed\n"
      "rw=read # comment\n"
      "fileoffset=64k\n"
      "size=64k\n";
  fs::path job = temp_file("json_options.fio", text);
  int status = 0;
  std::string out = run(std::string(kFio) + " --output-format=json " + job.string(), status);
  REQUIRE(status == 0);
  nlohmann::json doc = nlohmann::json::parse(out.substr(out.find('{')));

  auto r = parse_job_file(text, "json_options.fio");
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == doc["jobs"].size());
  // fio reports options as an object; bare flags (no value) are left out.
  auto as_object = [](const Options& list) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [k, v] : list)
      if (!v.empty()) o[k] = v;
    return o;
  };
  CHECK(as_object(r->global.given) == doc["global options"]);
  for (size_t i = 0; i < r->jobs.size(); ++i) {
    INFO("job " << i);
    CHECK(r->jobs[i].name == doc["jobs"][i]["jobname"].get<std::string>());
    CHECK(as_object(r->jobs[i].given) == doc["jobs"][i]["job options"]);
  }
}

// ---------------------------------------------------------------- bad corpus

TEST_CASE("every bad job file fails with its line and message", "[job_parser][corpus]") {
  // Each file's first line reads "# expect-error: LINE: MESSAGE": LINE 0
  // for a file-level error without a line.
  const std::string tag = "# expect-error: ";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(corpus_dir("bad"))) {
    if (entry.path().extension() != ".fio") continue;
    ++files;
    const std::string name = entry.path().filename().string();
    INFO(name);
    const std::string text = read_text(entry.path());
    const std::string first_line = text.substr(0, text.find('\n'));
    REQUIRE(first_line.starts_with(tag));
    const size_t colon = first_line.find(": ", tag.size());
    REQUIRE(colon != std::string::npos);
    const std::string line = first_line.substr(tag.size(), colon - tag.size());
    const std::string message = first_line.substr(colon + 2);
    REQUIRE_FALSE(line.empty());
    REQUIRE(line.find_first_not_of("0123456789") == std::string::npos);
    REQUIRE_FALSE(message.empty());

    auto r = parse_job_file(text, name);
    INFO(rs::test::error_text(r));
    REQUIRE_FALSE(r.ok());  // a refusal carries no jobs: Result holds the error only
    const std::string prefix = line == "0" ? name + ": " : name + ":" + line + ": ";
    CHECK_THAT(r.error().message, Catch::StartsWith(prefix));
    CHECK_THAT(r.error().message, Catch::Contains(message));
  }
  CHECK(files >= 15);
}

// ---------------------------------------------------------------- file rules

TEST_CASE("key = value is read as meant, with a warning that fio would not", "[job_parser]") {
  auto r = parse_job_file("[j]\nrw = randread\nbs = 8k\nsize=1m\n", "spaces.fio");
  REQUIRE(r.ok());
  CHECK(r->jobs[0].rw == RwMode::randread);
  CHECK(r->jobs[0].bs[kDdirRead] == 8192);
  REQUIRE(r->warnings.size() == 2);
  CHECK_THAT(r->warnings[0], Catch::StartsWith("spaces.fio:2: fio 3.33 keeps the blank after '='"));
  CHECK_THAT(r->warnings[1], Catch::Contains("write bs=8k"));
  // A blank before '=' is harmless to fio too.
  auto before = parse_job_file("[j]\nbs =8k\n", "x.fio");
  REQUIRE(before.ok());
  CHECK(before->warnings.empty());
  CHECK(before->jobs[0].bs[kDdirRead] == 8192);
}

TEST_CASE("comments, blank lines, indentation and CRLF", "[job_parser]") {
  const std::string text =
      "\r\n"
      "   ; indented comment\r\n"
      "\t# another\r\n"
      "  [ spaced name ]   ; comment after a header\r\n"
      "   bs=16k;comment without a blank\r\n"
      "\r\n"
      "rw=write#comment\r\n";
  auto r = parse_job_file(text, "crlf.fio");
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 1);
  CHECK(r->jobs[0].name == " spaced name ");  // fio keeps the inner blanks
  CHECK(r->jobs[0].line == 4);
  CHECK(r->jobs[0].bs[kDdirWrite] == 16384);
  CHECK(r->jobs[0].rw == RwMode::write);
}

TEST_CASE("a section named global-something is global, as in fio", "[job_parser]") {
  auto r = parse_job_file("[global-defaults]\nbs=8k\n[j]\nrw=read\n", "g.fio");
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 1);
  CHECK(r->jobs[0].bs[kDdirRead] == 8192);
  REQUIRE(r->warnings.size() == 1);
  CHECK_THAT(r->warnings[0], Catch::Contains("global section"));
}

TEST_CASE("option errors carry the option's own line", "[job_parser]") {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"[j]\nrw=randread:8\n", "x.fio:2: rw=randread:8: for random I/O the ':N' postfix"},
      {"[j]\nbs=4k,8k,16q\n", "x.fio:2: bs: "},  // the trim value is checked too
      {"[j]\nbs=4k:8k\n", "x.fio:2: bs: block size ranges"},
      {"[j]\nrandom_distribution=zoned_abs:60/10:40/90\n",
       "x.fio:2: random_distribution=zoned_abs is not supported"},
      {"[j]\nrandom_distribution=pareto:1.5\n", "x.fio:2: pareto input must be in (0, 1)"},
      {"[j]\nrandom_distribution=normal:10:1.5\n", "x.fio:2: random_distribution center must be in [0, 1]"},
      {"[j]\nrandom_distribution=gauss:5\n", "x.fio:2: bad random_distribution 'gauss:5'"},
      {"[j]\npercentile_list=50,90\n", "x.fio:2: bad percentile '50,90'"},
      {"[j]\nverify=sha3-256\n", "x.fio:2: verify=sha3-256 is not supported"},
      {"[j]\nfile_service_type=zipf:1\n", "x.fio:2: file_service_type: zipf theta must be positive"},
      {"[j]\nfile_service_type=pareto:0.2:2\n", "x.fio:2: file_service_type: the center in 'pareto:0.2:2'"},
      {"[j]\nfile_service_type=zoned\n", "x.fio:2: bad file_service_type 'zoned'"},
      {"[j]\ndirectory=/a:/b\n", "x.fio:2: directory: several directories"},
      {"[j]\ndirect=yes\n", "x.fio:2: direct: expected 0 or 1, got 'yes'"},
      {"[j]\ntime_based=2\n", "x.fio:2: time_based: expected 0 or 1"},
      {"[j]\nrw=randtrim:8k\n", "x.fio:2: rw=randtrim:8k: for random I/O the ':N' postfix"},
      {"[j]\n=4k\n", "x.fio:2: option without a name"},
      {"[]\nbs=4k\n", "x.fio:1: empty section name"},
      {"[a]b]\n", "x.fio:1: bad section header"},
      {"[j]\nsize=$nosuchkeyword\n", "x.fio:2: variable expansion is not supported"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto r = parse_job_file(c.text, "x.fio");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith(c.error));
  }
}

TEST_CASE("bs larger than size names the direction for mixed jobs", "[job_parser]") {
  auto r = parse_job_file("[j]\nrw=randrw\nsize=32k\nbs=4k,64k\n", "x.fio");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "x.fio:4: job 'j': write bs 64KiB is larger than size 32KiB");
  // A write-only bs does not matter to a read job.
  auto ok = parse_job_file("[j]\nrw=read\nsize=32k\nbs=4k,64k\n", "x.fio");
  CHECK(ok.ok());
  // size=0 is fio's "the whole file": checked later against the target.
  auto whole = parse_job_file("[j]\nsize=0\n", "x.fio");
  REQUIRE(whole.ok());
  CHECK(whole->jobs[0].size == 0);
}

// ---------------------------------------------------------------- command line

TEST_CASE("command line: globals before the first --name, one job per --name", "[job_parser][cli]") {
  auto r =
      parse_cli_job({"--ioengine=null", "--bs", "8k", "--output-format=json", "--name=a", "--rw=randread",
                     "--time_based", "--runtime=5", "--name", "b", "--readwrite=write", "--iodepth=4"});
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  CHECK((r->flags.output.json && !r->flags.output.normal && !r->flags.output.terse));
  REQUIRE(r->jobs.size() == 2);
  CHECK(r->jobs[0].name == "a");
  CHECK(r->jobs[0].origin == "command line");
  CHECK(r->jobs[0].line == 0);
  CHECK(r->jobs[0].rw == RwMode::randread);
  CHECK(r->jobs[0].time_based);
  CHECK(r->jobs[0].runtime == microseconds(5'000'000));
  CHECK(r->jobs[0].bs[kDdirRead] == 8192);
  CHECK(r->jobs[1].name == "b");
  CHECK(r->jobs[1].rw == RwMode::write);
  CHECK_FALSE(r->jobs[1].time_based);  // options after --name=a belong to a only
  CHECK(r->jobs[1].iodepth == 4);
  CHECK(r->jobs[1].ioengine == IoEngine::null);
  CHECK(r->global.given == Options{{"ioengine", "null"}, {"bs", "8k"}});
  // fio's JSON lists the name first among a command-line job's options.
  CHECK(r->jobs[0].given == Options{{"name", "a"}, {"rw", "randread"}, {"time_based", ""}, {"runtime", "5"}});
  CHECK(r->jobs[1].inherited == r->global.given);
  CHECK(r->job_files.empty());
}

TEST_CASE("command line: job files and global options that apply to them", "[job_parser][cli]") {
  auto cli = parse_cli_job({"--bs=8k", "jobs.fio", "--output-format", "normal"});
  REQUIRE(cli.ok());
  CHECK(cli->jobs.empty());
  CHECK(cli->job_files == std::vector<std::string>{"jobs.fio"});
  CHECK((cli->flags.output.normal && !cli->flags.output.json));
  // fio applies command-line globals to job-file jobs (checked with fio 3.33).
  auto file = parse_job_file("[global]\niodepth=2\n[j]\nrw=read\n", "jobs.fio", cli->global);
  REQUIRE(file.ok());
  CHECK(file->jobs[0].bs[kDdirRead] == 8192);
  CHECK(file->jobs[0].iodepth == 2);
  CHECK(file->global.given == Options{{"bs", "8k"}, {"iodepth", "2"}});
}

TEST_CASE("filename= adds to the files a job inherits, as fio's", "[job_parser][cli]") {
  // fio 3.33, write_iolog per job: [global] filename=ga, [j] filename=jb,
  // [k] none. Alone: j opens ga and jb, k opens ga. With --filename=cl in
  // front: j opens cl, ga, jb and k cl, ga. A name given twice is opened
  // twice (filename=ga:jb under a global ga: ga, ga, jb).
  const char* text = "[global]\nfilename=ga\n[j]\nfilename=jb\n[k]\n[t]\nfilename=ga:jb\n";
  auto alone = parse_job_file(text, "t.fio");
  REQUIRE(alone.ok());
  CHECK(alone->jobs[0].filename == "ga:jb");
  CHECK(alone->jobs[1].filename == "ga");
  CHECK(alone->jobs[2].filename == "ga:ga:jb");
  auto cli = parse_cli_job({"--filename=cl", "t.fio"});
  REQUIRE(cli.ok());
  auto with_cli = parse_job_file(text, "t.fio", cli->global);
  REQUIRE(with_cli.ok());
  CHECK(with_cli->jobs[0].filename == "cl:ga:jb");
  CHECK(with_cli->jobs[1].filename == "cl:ga");
  // On the command line alone, a job's --filename adds to the global one.
  auto both = parse_cli_job({"--filename=cl", "--name=m", "--filename=jb"});
  REQUIRE(both.ok());
  CHECK(both->jobs[0].filename == "cl:jb");
}

TEST_CASE("command line: errors name the argument", "[job_parser][cli]") {
  struct Case {
    std::vector<std::string> args;
    const char* error;
  };
  const std::vector<Case> cases = {
      {{"--name=a", "--zonerandom=1"}, "command line: '--zonerandom=1': unsupported option 'zonerandom'"},
      {{"--name=a", "--bs=4q"}, "command line: '--bs=4q': bs: bad size '4q'"},
      {{"--name=a", "--bs"}, "command line: '--bs': option 'bs' requires a value"},
      {{"--name=a", "--direct"}, "command line: '--direct': option 'direct' requires a value"},
      {{"--output-format=xml", "--name=a"}, "command line: '--output-format=xml': --output-format: 'xml'"},
      {{"--name=a", "-v"}, "command line: '-v': short options are not supported"},
      {{"--bs=8k"}, "command line: no job given"},
      {{"--name=a", "--size=4k", "--bs=8k"},
       "command line: '--name=a': job 'a': bs 8KiB is larger than size 4KiB"},
      {{"--name=a", "--iodepth=0", "--name=b"}, "command line: '--iodepth=0': iodepth must be at least 1"},
  };
  for (const auto& c : cases) {
    auto r = parse_cli_job(c.args);
    INFO(c.error);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith(c.error));
  }
}

TEST_CASE("iodepth batching options: fio's names, aliases, defaults and fix-ups", "[job_parser]") {
  auto defaults = parse_job_file("[j]\niodepth=32\n", "d.fio");
  REQUIRE(defaults.ok());
  const JobOptions& d = defaults->jobs[0];
  // fio submits and reaps one I/O at a time unless told otherwise.
  CHECK(submit_batch(d) == 1);
  CHECK(d.iodepth_batch_complete_min == 1);
  CHECK(reap_batch_max(d) == 1);

  auto r = parse_job_file(
      "[a]\niodepth=32\niodepth_batch_submit=8\niodepth_batch_complete_min=2\niodepth_batch_complete_max=16\n"
      "[b]\niodepth=16\niodepth_batch=0\niodepth_batch_complete=4\n"
      "[c]\niodepth=4\niodepth_batch=64\n",
      "batch.fio");
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  const JobOptions& a = job_named(*r, "a");
  CHECK(submit_batch(a) == 8);
  CHECK(a.iodepth_batch_complete_min == 2);
  CHECK(reap_batch_max(a) == 16);
  const JobOptions& b = job_named(*r, "b");
  CHECK(submit_batch(b) == 16);  // 0 means iodepth
  CHECK(b.iodepth_batch_complete_min == 4);
  CHECK(reap_batch_max(b) == 4);                 // max below min is raised to min
  CHECK(submit_batch(job_named(*r, "c")) == 4);  // capped at iodepth
  // fio's JSON "job options" keeps the canonical names.
  REQUIRE(b.given.size() == 3);
  CHECK(b.given[1].first == "iodepth_batch_submit");
  CHECK(b.given[2].first == "iodepth_batch_complete_min");

  auto cli = parse_cli_job({"--name=x", "--iodepth=8", "--iodepth_batch_complete_max=-1"});
  CHECK_FALSE(cli.ok());
  CHECK_THAT(cli.error().message, Catch::Contains("iodepth_batch_complete_max"));
}

// A message quotes the file's text as printable and cut: never raw bytes
// (an escape sequence that would drive the terminal) or a whole long line.
TEST_CASE("job-file errors quote the text printable and cut", "[job_parser]") {
  auto only_printable = [](const std::string& s) {
    for (unsigned char c : s)
      if (c < 0x20 || c == 0x7f) return false;
    return true;
  };
  {
    const auto r = parse_job_file("[j]\nrw=read\x1b[2J\n", "esc.fio");
    REQUIRE_FALSE(r.ok());
    CHECK(only_printable(r.error().message));
    CHECK_THAT(r.error().message, Catch::Contains("\\x1b[2J"));
  }
  {
    const auto r = parse_job_file("[j]\n" + std::string(10'000'000, 'x') + "\n", "long.fio");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.size() < 300);
    CHECK_THAT(r.error().message, Catch::Contains("(10000000 bytes)"));
  }
  {
    std::string binary = "[j]\nrw=read\n";
    binary += std::string("\x00\xff\xfe", 3);
    const auto r = parse_job_file(binary, "bin.fio");
    REQUIRE_FALSE(r.ok());
    CHECK(only_printable(r.error().message));
    CHECK_THAT(r.error().message, Catch::Contains("bin.fio:3") && Catch::Contains("not a job file"));
  }
  {
    // A value with bytes that are not UTF-8, and one that is (kept as it is).
    const auto bad = parse_job_file("[j]\nbs=4k\xff\n", "utf.fio");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message, Catch::Contains("\\xff"));
    const auto utf8 = parse_job_file(
        "[j]\nrw=r\xc3\xa9"
        "ad\n",
        "utf8.fio");
    REQUIRE_FALSE(utf8.ok());
    CHECK_THAT(utf8.error().message, Catch::Contains("'r\xc3\xa9"
                                                     "ad'"));
  }
}
