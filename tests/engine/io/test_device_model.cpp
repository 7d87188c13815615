// Device profiles (strict parsing, a source per parameter), the SSD / HDD
// timing models and the block layer in front of them, measured the way fio
// would: a closed loop at a queue depth on the simulator. Expected figures
// come from the mechanics by hand (seek + rotation + transfer, dies x page
// time, ...) or from published measurements, named where used.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>
#include <thread>

#include "../../common/result_helpers.hpp"
#include "io/block_layer.hpp"
#include "io/device_profile.hpp"
#include "io/hdd_model.hpp"
#include "io/sim_backend.hpp"
#include "io/ssd_model.hpp"
#include "sim_driver.hpp"

using namespace rs::io;
using nlohmann::json;
using rs::io::test::ClosedLoop;
using rs::io::test::LoopResult;
using rs::io::test::LoopSpec;

namespace {

const std::string kProfileDir = std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/profiles";

DeviceProfile shipped(const std::string& name) {
  std::string err;
  auto p = find_profile(name, {kProfileDir});
  INFO(rs::test::error_text(p));
  REQUIRE(p);
  return *p;
}

LoopResult run_model(DeviceModel& m, const LoopSpec& s, bool record = false) {
  DeviceModel* members[] = {&m};
  SimBackend be(members);
  return ClosedLoop::run(be, s, record);
}

// The whole emulated device (block layer + timing model).
LoopResult run_on(const DeviceProfile& p, const LoopSpec& s, bool record = false) {
  auto m = rs::test::must(make_model(p));
  return run_model(*m, s, record);
}

// Latency of one I/O on an idle device (the DeviceModel path).
double single_io_us(DeviceModel& m, uint64_t now_ns, bool write, uint64_t offset, uint32_t length) {
  return double(m.schedule(now_ns, write, offset, length) - now_ns) * 1e-3;
}

// Every key a test profile sets gets a source, as the parser demands.
json sourced(json j) {
  json src = json::object();
  for (auto& [k, v] : j.items())
    if (k != "name" && k != "description") src[k] = "test";
  j["sources"] = src;
  return j;
}

json ssd_base() {
  return json{{"name", "t"},
              {"rotational", false},
              {"capacity_bytes", 1ull << 40},
              {"seq_read_bw", 1e9},
              {"seq_write_bw", 1e9},
              {"read_iops", 100000},
              {"write_iops", 100000},
              {"parallelism", 8},
              {"base_read_latency_us", 10},
              {"base_write_latency_us", 10}};
}

json hdd_base() {
  return json{{"name", "h"},
              {"rotational", true},
              {"seq_read_bw", 200e6},
              {"seq_write_bw", 200e6},
              {"base_read_latency_us", 0},
              {"base_write_latency_us", 0},
              {"rpm", 7200},
              {"track_to_track_ms", 1.0},
              {"avg_seek_ms", 8.5},
              {"full_stroke_ms", 17.0},
              {"capacity_bytes", 4000000000000ull}};
}

DeviceProfile parse_ok(const json& j) {
  std::string err;
  auto p = parse_profile(sourced(j).dump(), "test.json");
  INFO(rs::test::error_text(p));
  REQUIRE(p);
  return *p;
}

// fio-like closed loop on the DeviceModel path (schedule(), as the io_uring
// backend uses it): `qd` I/Os outstanding, each completion starts the next.
double schedule_path_iops(DeviceModel& m, unsigned qd, uint64_t span, uint32_t bs, unsigned ios) {
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> due;
  uint64_t rng = 12345, now = 0;
  auto next_offset = [&] {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (rng % (span / bs)) * bs;
  };
  for (unsigned i = 0; i < qd; ++i) due.push(m.schedule(0, false, next_offset(), bs));
  for (unsigned i = qd; i < ios; ++i) {
    now = due.top();
    due.pop();
    due.push(m.schedule(now, false, next_offset(), bs));
  }
  return double(ios - qd) / (double(now) * 1e-9);
}

}  // namespace

// ---- profiles ----

TEST_CASE("every shipped profile loads, names a source for every parameter and builds its model",
          "[profile]") {
  ProfileList list = list_profiles(kProfileDir);
  for (const auto& e : list.errors) FAIL_CHECK(e);
  std::set<std::string> names;
  for (const DeviceProfile& p : list.profiles) {
    names.insert(p.name);
    INFO(p.name);
    CHECK(p.origin == kProfileDir + "/" + p.name + ".json");
    // The parser already refuses a key without a source; check the files'
    // sources say something beyond a placeholder.
    std::ifstream in(p.origin);
    json doc = json::parse(in);
    for (auto& [k, v] : doc.items()) {
      if (k == "name" || k == "description" || k == "sources") continue;
      INFO(k);
      REQUIRE(p.sources.count(k) == 1);
      CHECK(p.sources.at(k).size() >= 10);
    }
    CHECK(p.capacity_bytes >= (1ull << 30));  // every profile says how big the device is
    auto m = rs::test::must(make_model(p));
    REQUIRE(m);
    CHECK(m->rotational() == p.rotational);
    CHECK(m->io_opt() == p.io_opt);
    CHECK(m->logical_block_size() == p.logical_block_size);
  }
  for (const char* n : {"nvme-gm9000", "optane-pmem", "hdd-hdwg740", "virtio-100mbs", "ssd-sata", "hdd-old",
                        "hdd-modern", "nvme-p5520"})
    CHECK(names.count(n) == 1);

  // Decisions the profiles document.
  CHECK(shipped("nvme-gm9000").io_opt == 0);  // seed 000: optimal_io_size=0
  CHECK(shipped("nvme-p5520").io_opt == 4096);
  CHECK(shipped("virtio-100mbs").rotational);
  CHECK(shipped("virtio-100mbs").model == TimingModel::Ssd);
  CHECK(shipped("hdd-hdwg740").model == TimingModel::Hdd);
  CHECK(shipped("hdd-hdwg740").avg_seek_ms == 8.5);  // the datasheet's figure, not an effective one
  CHECK(shipped("hdd-hdwg740").scheduler == Scheduler::MqDeadline);  // seed 000: SATA mq-deadline
  CHECK(shipped("nvme-gm9000").scheduler == Scheduler::None);        // seed 000: NVMe none
  // Flash profiles model internal parallelism.
  for (const char* n : {"nvme-gm9000", "ssd-sata"}) {
    CHECK(shipped(n).dies > 1);
    CHECK(shipped(n).die_read_us > 0);
  }
}

TEST_CASE("find_profile names what it could not find", "[profile]") {
  std::string err;
  err = rs::test::error_text(find_profile("no-such-disk", {kProfileDir}));
  CHECK_FALSE(err.empty());
  CHECK(err.find("no-such-disk") != std::string::npos);
  CHECK(err.find(kProfileDir) != std::string::npos);
  err = rs::test::error_text(find_profile("../etc/passwd", {kProfileDir}));
  CHECK_FALSE(err.empty());
  CHECK(find_profile("ssd-sata", {"/nonexistent", kProfileDir}));
}

TEST_CASE("profile parser accepts defaults and both timing models", "[profile]") {
  DeviceProfile s = parse_ok(ssd_base());
  CHECK(s.model == TimingModel::Ssd);
  CHECK(s.scale == 1.0);
  CHECK(s.logical_block_size == 512);
  CHECK(s.io_opt == 0);
  CHECK(s.dies == 1);
  CHECK(s.die_read_us == 0);
  // Block layer defaults: the kernel's.
  CHECK(s.max_sectors_kb == 1280);
  CHECK(s.queue_depth == 32);
  CHECK(s.scheduler == Scheduler::None);
  CHECK(s.effective_nr_requests() == 32);
  DeviceProfile h = parse_ok(hdd_base());
  CHECK(h.model == TimingModel::Hdd);
  CHECK(h.ncq_depth == 1);
  CHECK(h.readahead_bytes == 0);
  json v = ssd_base();
  v["rotational"] = true;
  v["model"] = "ssd";
  v["scheduler"] = "mq-deadline";
  DeviceProfile vs = parse_ok(v);
  CHECK(vs.rotational);
  CHECK(vs.effective_nr_requests() == 64);  // 2 x min(queue_depth, 128) with a scheduler
  CHECK(vs.sources.at("scheduler") == "test");
}

TEST_CASE("profile parser rejects bad input naming file, key and value", "[profile]") {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;  // applied after the sources were filled in
    bool hdd;
    std::vector<std::string> expect;
  };
  const std::vector<Case> cases = {
      {"unknown key", [](json& j) { j["colour"] = "red"; }, false, {"unknown key \"colour\"", "\"red\""}},
      {"negative bandwidth",
       [](json& j) { j["seq_read_bw"] = -5; },
       false,
       {"\"seq_read_bw\"", "-5", ">= 1000"}},
      {"zero iops", [](json& j) { j["read_iops"] = 0; }, false, {"\"read_iops\"", "= 0"}},
      {"scale 0",
       [](json& j) {
         j["scale"] = 0;
         j["sources"]["scale"] = "t";
       },
       false,
       {"\"scale\"", "= 0"}},
      {"missing sources", [](json& j) { j.erase("sources"); }, false, {"missing required key \"sources\""}},
      {"a key without a source",
       [](json& j) { j["sources"].erase("seq_write_bw"); },
       false,
       {"\"seq_write_bw\"", "names no source"}},
      {"a source for a key not set",
       [](json& j) { j["sources"]["rpm"] = "datasheet"; },
       false,
       {"sources", "\"rpm\"", "does not set"}},
      {"an empty source",
       [](json& j) { j["sources"]["read_iops"] = ""; },
       false,
       {"sources", "\"read_iops\""}},
      {"sources not an object",
       [](json& j) { j["sources"] = "datasheet"; },
       false,
       {"\"sources\"", "an object"}},
      {"missing capacity",
       [](json& j) {
         j.erase("capacity_bytes");
         j["sources"].erase("capacity_bytes");
       },
       false,
       {"missing required key \"capacity_bytes\""}},
      {"missing iops",
       [](json& j) {
         j.erase("write_iops");
         j["sources"].erase("write_iops");
       },
       false,
       {"missing required key \"write_iops\""}},
      {"bool as string",
       [](json& j) { j["rotational"] = "yes"; },
       false,
       {"\"rotational\"", "\"yes\"", "true or false"}},
      {"fractional integer",
       [](json& j) { j["parallelism"] = 2.5; },
       false,
       {"\"parallelism\"", "2.5", "an integer"}},
      {"zero dies",
       [](json& j) {
         j["dies"] = 0;
         j["sources"]["dies"] = "t";
       },
       false,
       {"\"dies\"", "0"}},
      {"odd die page",
       [](json& j) {
         j["die_page_bytes"] = 3000;
         j["sources"]["die_page_bytes"] = "t";
       },
       false,
       {"\"die_page_bytes\"", "3000"}},
      {"unknown scheduler",
       [](json& j) {
         j["scheduler"] = "cfq";
         j["sources"]["scheduler"] = "t";
       },
       false,
       {"\"scheduler\"", "\"cfq\""}},
      {"zero queue depth",
       [](json& j) {
         j["queue_depth"] = 0;
         j["sources"]["queue_depth"] = "t";
       },
       false,
       {"\"queue_depth\"", "0"}},
      {"hdd key on ssd",
       [](json& j) {
         j["rpm"] = 7200;
         j["sources"]["rpm"] = "t";
       },
       false,
       {"\"rpm\"", "7200", "only for the hdd model"}},
      {"ssd key on hdd",
       [](json& j) {
         j["dies"] = 4;
         j["sources"]["dies"] = "t";
       },
       true,
       {"\"dies\"", "only for the ssd model"}},
      {"hdd without rpm",
       [](json& j) {
         j.erase("rpm");
         j["sources"].erase("rpm");
       },
       true,
       {"missing required key \"rpm\""}},
      {"seek curve not square-root shaped",
       [](json& j) { j["avg_seek_ms"] = 16; },
       true,
       {"\"avg_seek_ms\"", "16"}},
      {"ncq depth 0",
       [](json& j) {
         j["ncq_depth"] = 0;
         j["sources"]["ncq_depth"] = "t";
       },
       true,
       {"\"ncq_depth\"", "0"}},
  };
  for (const Case& c : cases) {
    json j = sourced(c.hdd ? hdd_base() : ssd_base());
    c.edit(j);
    std::string err;
    INFO(c.what);
    err = rs::test::error_text(parse_profile(j.dump(), "dir/test.json"));
    CHECK_FALSE(err.empty());
    INFO(err);
    CHECK(err.rfind("dir/test.json: ", 0) == 0);
    for (const std::string& s : c.expect) CHECK(err.find(s) != std::string::npos);
  }

  std::string err;
  err = rs::test::error_text(parse_profile("{\"name\": \"x\",", "broken.json"));
  CHECK_FALSE(err.empty());
  CHECK(err.find("broken.json: not valid JSON") != std::string::npos);
  // A number past a double's range is an error to report, not an exception
  // to escape (found by fuzz_device_profile).
  err = rs::test::error_text(
      parse_profile("{\"name\": \"x\", \"capacity_bytes\": 2E000398934016}", "huge.json"));
  CHECK_FALSE(err.empty());
  CHECK(err.find("huge.json: not valid JSON") != std::string::npos);
  CHECK(err.find("number overflow") != std::string::npos);
  err = rs::test::error_text(parse_profile("[1, 2]", "array.json"));
  CHECK_FALSE(err.empty());
  CHECK(err.find("array.json: expected a JSON object") != std::string::npos);
  std::string dup = sourced(ssd_base()).dump();
  dup.insert(1, "\"parallelism\": 4, ");
  err = rs::test::error_text(parse_profile(dup, "dup.json"));
  CHECK_FALSE(err.empty());
  CHECK(err.find("\"parallelism\" appears more than once") != std::string::npos);
  err = rs::test::error_text(load_profile_file("/nonexistent/p.json"));
  CHECK_FALSE(err.empty());
  CHECK(err.find("/nonexistent/p.json") != std::string::npos);
}

TEST_CASE("validate_profile checks a profile edited in code", "[profile]") {
  DeviceProfile p = shipped("nvme-gm9000");
  p.scale = 0.25;
  CHECK(validate_profile(p));
  p.scale = 0;
  const rs::Status v = validate_profile(p);
  REQUIRE_FALSE(v);
  CHECK(v.error().message.find("\"scale\"") != std::string::npos);
  const auto m = make_model(p);
  REQUIRE_FALSE(m);
  CHECK(m.error().message == v.error().message);
}

// ---- seek curve ----

TEST_CASE("seek curve passes through the three datasheet figures", "[hdd]") {
  auto c = SeekCurve::fit(1.0, 8.5, 17.0);
  REQUIRE(c);
  CHECK(c->ms(0) == 0);
  CHECK(c->ms(1e-9) == Approx(1.0).epsilon(0.001));
  CHECK(c->ms(1.0 / 3.0) == Approx(8.5));
  CHECK(c->ms(1.0) == Approx(17.0));
  double prev = 0;
  for (int i = 1; i <= 1000; ++i) {
    const double t = c->ms(i / 1000.0);
    CHECK(t >= prev);
    prev = t;
  }
  // Mean over uniformly random pairs, by numerical integration of the
  // distance density 2(1-d).
  double mean = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double d = (i + 0.5) / n;
    mean += c->ms(d) * 2 * (1 - d) / n;
  }
  CHECK(c->mean_random_ms() == Approx(mean).epsilon(1e-4));
  CHECK_FALSE(SeekCurve::fit(1.0, 4.0, 17.0));   // below the linear curve
  CHECK_FALSE(SeekCurve::fit(1.0, 16.0, 17.0));  // would have to fall again
}

// ---- SSD ----

TEST_CASE("ssd model: QD1 latency is the base latency plus a page read (or the transfer)", "[ssd]") {
  DeviceProfile p = shipped("nvme-gm9000");
  LoopResult r = run_on(p, {.bs = 4096, .random = true, .qd = 1, .ios = 2000});
  // A 4 KiB read is one page on one die; the die's time exceeds the transfer.
  CHECK(r.mean_latency_us() == Approx(p.base_read_latency_us + p.die_read_us).epsilon(0.001));
  // Seed 000: 0.084 GB/s at 4k QD1.
  CHECK(r.bytes_per_s() == Approx(84e6).epsilon(0.01));
  // Without dies the transfer is the device time.
  DeviceProfile plain = parse_ok(ssd_base());
  LoopResult w = run_on(plain, {.write = true, .bs = 4096, .random = true, .qd = 1, .ios = 2000});
  CHECK(w.mean_latency_us() == Approx(10 + 4096 / 1e9 * 1e6).epsilon(0.001));
}

TEST_CASE("ssd model: saturated throughput meets the link, the dies and the IOPS ceilings", "[ssd]") {
  for (const char* name : {"nvme-gm9000", "optane-pmem", "ssd-sata", "nvme-p5520"}) {
    DeviceProfile p = shipped(name);
    INFO(name);
    // 1 MiB sequential: the pipe, unless the dies cannot keep up.
    const double die_bw = p.die_read_us > 0 ? p.dies * p.die_page_bytes / (p.die_read_us * 1e-6) : 1e300;
    LoopResult seq = run_on(p, {.bs = 1 << 20, .qd = 32, .ios = 4000});
    CHECK(seq.bytes_per_s() == Approx(std::min(p.seq_read_bw, die_bw)).epsilon(0.02));
    // 4 KiB random at a depth no latency can hide (slots and tags opened
    // up, so collisions on dies cost nothing): the lowest of the
    // controller's IOPS, the pipe and dies / page time.
    p.parallelism = p.queue_depth = 65536;
    const double die_iops = p.die_read_us > 0 ? p.dies / (p.die_read_us * 1e-6) : 1e300;
    const double ceiling = std::min({p.read_iops, p.seq_read_bw / 4096, die_iops});
    LoopResult rnd = run_on(p, {.bs = 4096, .random = true, .qd = 4000, .ios = 200000});
    CHECK(rnd.iops() == Approx(ceiling).epsilon(0.03));
  }
}

TEST_CASE("ssd model: random reads collide on dies, so throughput grows with depth gradually", "[ssd]") {
  json j = ssd_base();
  j["dies"] = 8;
  j["die_read_us"] = 100;
  j["base_read_latency_us"] = 0;
  j["read_iops"] = 1e8;
  j["seq_read_bw"] = 1e12;
  j["parallelism"] = 1024;
  j["queue_depth"] = 1024;
  DeviceProfile p = parse_ok(j);
  auto iops = [&](unsigned qd) {
    return run_on(p, {.bs = 4096, .random = true, .span = 1ull << 36, .qd = qd, .ios = 100000}).iops();
  };
  const double full = 8 / 100e-6;  // every die busy all the time
  CHECK(iops(1) == Approx(1 / 100e-6).epsilon(0.001));
  // At depth 8 = dies, reads pile up on the same dies: well below 8x QD1.
  // (A closed network of 8 servers with 8 customers routed at random keeps
  // n/(n+D-1) = 53 % busy with exponential service; fixed service a bit more.)
  const double qd8 = iops(8) / full;
  CHECK(qd8 > 0.5);
  CHECK(qd8 < 0.75);
  CHECK(iops(64) / full > 0.9);  // deep enough, every die finds work
  // One die: no parallelism at all.
  j["dies"] = 1;
  DeviceProfile one = parse_ok(j);
  CHECK(run_on(one, {.bs = 4096, .random = true, .qd = 16, .ios = 20000}).iops() ==
        Approx(1 / 100e-6).epsilon(0.01));
}

TEST_CASE("ssd model: the queue-depth curves match the published sweeps they are taken from",
          "[ssd][seeds]") {
  // nvme-gm9000's dies: KitGuru's Lexar NM790 sweep, 4 KiB random read one
  // thread, QD1 20,176 IOPS -> QD8 132,941 IOPS (6.6x). The profile's
  // source states it reaches 7.0x (16 dies must also keep up with the
  // link on sequential reads).
  DeviceProfile g = shipped("nvme-gm9000");
  const double q1 =
      run_on(g, {.bs = 4096, .random = true, .span = 64ull << 30, .qd = 1, .ios = 20000}).iops();
  const double q8 =
      run_on(g, {.bs = 4096, .random = true, .span = 64ull << 30, .qd = 8, .ios = 100000}).iops();
  CHECK(q8 / q1 == Approx(6.6).epsilon(0.10));
  // ssd-sata's die time: seed 003's SSD, 13.9k IOPS of 32 KiB at QD16
  // (mean latency 1152 us, which follows).
  DeviceProfile s = shipped("ssd-sata");
  LoopResult r = run_on(s, {.bs = 32768, .random = true, .span = 48ull << 30, .qd = 16, .ios = 100000});
  CHECK(r.iops() == Approx(13900).epsilon(0.02));
  CHECK(r.mean_latency_us() == Approx(1152).epsilon(0.03));
}

TEST_CASE("ssd model: parallelism bounds the commands served at once", "[ssd]") {
  json j = ssd_base();
  j["parallelism"] = 4;
  j["base_read_latency_us"] = 100;
  j["read_iops"] = 1e8;
  DeviceProfile p = parse_ok(j);
  LoopResult r = run_on(p, {.bs = 4096, .random = true, .qd = 32, .ios = 20000});
  const double per_io_s = 100e-6 + 4096 / p.seq_read_bw;
  CHECK(r.iops() == Approx(4 / per_io_s).epsilon(0.02));
}

TEST_CASE("halving a profile's bandwidth halves sequential results; scale slows rates, not latency",
          "[ssd][hdd]") {
  for (const char* name : {"nvme-gm9000", "hdd-hdwg740", "virtio-100mbs", "optane-pmem"}) {
    DeviceProfile p = shipped(name);
    INFO(name);
    const double full = run_on(p, {.bs = 1 << 20, .qd = 16, .ios = 2000}).bytes_per_s();
    DeviceProfile half = p;
    half.seq_read_bw /= 2;
    CHECK(run_on(half, {.bs = 1 << 20, .qd = 16, .ios = 2000}).bytes_per_s() ==
          Approx(full / 2).epsilon(0.02));
  }
  DeviceProfile p = shipped("nvme-gm9000");
  p.scale = 0.5;
  CHECK(run_on(p, {.bs = 1 << 20, .qd = 16, .ios = 2000}).bytes_per_s() ==
        Approx(p.seq_read_bw * 0.5).epsilon(0.02));
  DeviceProfile h = shipped("hdd-hdwg740");
  const LoopSpec rnd{.bs = 4096, .random = true, .span = h.capacity_bytes, .ios = 5000};
  const double full = run_on(h, rnd).iops();
  h.scale = 0.5;
  CHECK(run_on(h, {.bs = 1 << 20, .qd = 16, .ios = 500}).bytes_per_s() ==
        Approx(h.seq_read_bw * 0.5).epsilon(0.01));
  // Actuator time doubles; the base latency (0.1 ms of ~12.6) does not.
  CHECK(run_on(h, rnd).iops() == Approx(full * 0.5).epsilon(0.02));
}

TEST_CASE("sub-4K write penalty applies only to writes not covering whole 4 KiB units", "[ssd][hdd]") {
  DeviceProfile p = shipped("nvme-p5520");
  const double base_w = p.base_write_latency_us, base_r = p.base_read_latency_us;
  const double pen = p.sub4k_write_penalty_us;
  auto lat = [&](bool write, uint64_t off, uint32_t len) {
    auto m = rs::test::must(make_model(p));
    return single_io_us(*m, 1000, write, off, len);
  };
  auto xfer_w = [&](uint32_t len) { return len / p.seq_write_bw * 1e6; };
  CHECK(lat(true, 0, 4096) == Approx(base_w + xfer_w(4096)).margin(0.01));
  CHECK(lat(true, 8192, 8192) == Approx(base_w + xfer_w(8192)).margin(0.01));
  CHECK(lat(true, 12288, 3584) ==
        Approx(base_w + xfer_w(3584) + pen).margin(0.01));                           // seed 001's bitmap page
  CHECK(lat(true, 512, 4096) == Approx(base_w + xfer_w(4096) + pen).margin(0.01));   // misaligned
  CHECK(lat(true, 4096, 6144) == Approx(base_w + xfer_w(6144) + pen).margin(0.01));  // partial tail
  CHECK(lat(false, 12288, 3584) == Approx(base_r + 3584 / p.seq_read_bw * 1e6).margin(0.01));
  // Seed 001's biosnoop: 4 KiB writes 0.01-0.02 ms, 3584-byte writes 0.43-0.66 ms.
  CHECK(lat(true, 0, 4096) >= 10);
  CHECK(lat(true, 0, 4096) <= 20);
  CHECK(lat(true, 12288, 3584) >= 430);
  CHECK(lat(true, 12288, 3584) <= 660);

  // A drive without the penalty (the default) treats them alike.
  DeviceProfile g = shipped("nvme-gm9000");
  auto m = rs::test::must(make_model(g));
  CHECK(single_io_us(*m, 0, true, 12288, 3584) < 30);

  // The rotational model applies it too (a 512e disk's read-modify-write):
  // from the start of the disk at time 0 there is no positioning at all.
  json h = hdd_base();
  h["sub4k_write_penalty_us"] = 8333;
  DeviceProfile hp = parse_ok(h);
  HddModel a(hp), b(hp);
  CHECK(single_io_us(a, 0, true, 0, 3584) - single_io_us(b, 0, true, 0, 4096) ==
        Approx(8333 - 512 / hp.seq_write_bw * 1e6).margin(0.01));
}

// ---- HDD ----

TEST_CASE("hdd model: a sequential stream needs no positioning", "[hdd]") {
  DeviceProfile p = shipped("hdd-hdwg740");
  // Queued: each command starts where the previous ended, at the media rate.
  CHECK(run_on(p, {.bs = 1 << 20, .qd = 16, .ios = 2000}).bytes_per_s() ==
        Approx(p.seq_read_bw).epsilon(0.005));
  // One at a time: the drive reads ahead while it waits for the next
  // command, which then comes from the cache after the base latency alone.
  LoopResult qd1 = run_on(p, {.bs = 4096, .qd = 1, .ios = 2000});
  CHECK(qd1.mean_latency_us() == Approx(p.base_read_latency_us).epsilon(0.01));
  // Without read-ahead the next sector has gone by when the command comes:
  // almost a whole revolution (less what passed during the base latency).
  DeviceProfile nora = p;
  nora.readahead_bytes = 0;
  const double rot_us = 60e6 / p.rpm;
  const double expect_us = rot_us + 4096 / p.seq_read_bw * 1e6;  // wait + base - base slid by, + transfer
  CHECK(run_on(nora, {.bs = 4096, .qd = 1, .ios = 2000}).mean_latency_us() ==
        Approx(expect_us).epsilon(0.01));
}

TEST_CASE("hdd model: random QD1 costs seek plus half a rotation on average", "[hdd]") {
  DeviceProfile p = shipped("hdd-old");
  HddModel probe(p);
  const double expected_ms = probe.seek_curve().mean_random_ms() + probe.rotation_ms() / 2 +
                             4096 / p.seq_read_bw * 1e3 + p.base_read_latency_us * 1e-3;
  LoopResult r = run_on(p, {.bs = 4096, .random = true, .span = p.capacity_bytes, .qd = 1, .ios = 20000});
  CHECK(r.iops() == Approx(1000 / expected_ms).epsilon(0.03));
  // Over a short span the seeks shrink toward track-to-track.
  LoopResult s = run_on(p, {.bs = 4096, .random = true, .span = 1ull << 30, .qd = 1, .ios = 20000});
  CHECK(s.iops() > r.iops() * 1.3);
}

TEST_CASE("hdd model: an 8.5 ms average seek puts 4k QD1 IOPS at the datasheet's order", "[hdd]") {
  // A 7200 rpm disk with an 8.5 ms average seek: 1000 / (8.5 + 4.17) = 79
  // random reads per second over the whole disk, the figure datasheets of
  // the class imply.
  DeviceProfile p = shipped("hdd-hdwg740");
  REQUIRE(p.avg_seek_ms == 8.5);
  const double iops =
      run_on(p, {.bs = 4096, .random = true, .span = p.capacity_bytes, .qd = 1, .ios = 20000}).iops();
  CHECK(iops > 70);
  CHECK(iops < 90);
  // Halving every seek figure moves it the way the arithmetic says.
  DeviceProfile fast = p;
  fast.track_to_track_ms /= 2, fast.avg_seek_ms /= 2, fast.full_stroke_ms /= 2;
  HddModel a(p), b(fast);
  const double rest_ms = a.rotation_ms() / 2 + 4096 / p.seq_read_bw * 1e3 + p.base_read_latency_us * 1e-3;
  const double expect =
      (a.seek_curve().mean_random_ms() + rest_ms) / (b.seek_curve().mean_random_ms() + rest_ms);
  const double faster =
      run_on(fast, {.bs = 4096, .random = true, .span = p.capacity_bytes, .qd = 1, .ios = 20000}).iops();
  CHECK(faster / iops == Approx(expect).epsilon(0.03));
}

TEST_CASE("hdd model: NCQ reorders within its depth as published measurements show", "[hdd]") {
  // Published NCQ measurements of 7200 rpm SATA drives (Intel/Seagate,
  // "Serial ATA Native Command Queuing" white paper, 2003; the storage
  // reviews of the NCQ era) show 4 KiB random-read IOPS over the whole disk
  // roughly doubling from QD1 to QD32 when the drive may reorder, and
  // unchanged when it may not.
  DeviceProfile ncq = shipped("hdd-hdwg740");
  DeviceProfile fifo = ncq;
  fifo.ncq_depth = 1;
  const LoopSpec qd1{.bs = 4096, .random = true, .span = ncq.capacity_bytes, .qd = 1, .ios = 10000};
  const LoopSpec qd32{.bs = 4096, .random = true, .span = ncq.capacity_bytes, .qd = 32, .ios = 20000};
  const double base = run_on(ncq, qd1).iops();
  CHECK(run_on(fifo, qd1).iops() == Approx(base).epsilon(0.001));
  CHECK(run_on(fifo, qd32).iops() == Approx(base).epsilon(0.03));  // in order: depth buys nothing
  const double gain = run_on(ncq, qd32).iops() / base;
  CHECK(gain > 1.6);
  CHECK(gain < 3.2);
  // The deeper the queue the drive sees, the more it gains.
  DeviceProfile ncq8 = ncq;
  ncq8.ncq_depth = 8;
  const double gain8 = run_on(ncq8, qd32).iops() / base;
  CHECK(gain8 > 1.2);
  CHECK(gain8 < gain);
}

TEST_CASE("hdd model: positioning from the head, rotational position from the time", "[hdd]") {
  DeviceProfile p = parse_ok(hdd_base());
  HddModel m(p);
  const double track = m.track_bytes();
  CHECK(track == Approx(200e6 * 60.0 / 7200));
  const double rot_us = 60e6 / p.rpm;
  const double rate = p.seq_read_bw / 1e6;  // bytes per us
  // At time 0 the platter is at angle 0, over offset 0: no wait at all.
  CHECK(single_io_us(m, 0, false, 0, 4096) == Approx(4096 / rate).margin(0.01));
  // Straight after, a read further along the same track: the platter
  // carries the gap past.
  uint64_t now = uint64_t(4096 / rate * 1000 + 0.5);
  CHECK(single_io_us(m, now, false, 4096 + 65536, 4096) == Approx((65536 + 4096) / rate).epsilon(1e-3));
  // To a third of the disk: the average seek, then the wait for the sector.
  HddModel h(p);
  const uint64_t third = uint64_t(std::floor(double(p.capacity_bytes / 3) / track) * track);  // angle 0
  const double seek_us = 8500;
  const double wait_us = rot_us - std::fmod(seek_us, rot_us);  // angle 0 comes round again
  CHECK(single_io_us(h, 0, false, third, 4096) == Approx(seek_us + wait_us + 4096 / rate).epsilon(1e-3));
  // head_position moves at completion, not at scheduling.
  HddModel k(p);
  k.schedule(0, false, 1 << 20, 8192);
  CHECK(k.head_position() == 0);
  k.complete(1 << 20, 8192);
  CHECK(k.head_position() == (1 << 20) + 8192);
}

TEST_CASE("hdd model: a stream that skips spans, as one mirror of md-rr reads", "[hdd]") {
  // Under md-rr on rotational mirrors a disk reads a run of sequential
  // 1 MiB reads, then the stream jumps over what the other mirrors read.
  DeviceProfile p = shipped("hdd-hdwg740");
  HddModel probe(p);
  const double bw = p.seq_read_bw;
  const double rot_ms = probe.rotation_ms();
  const double track = probe.track_bytes();

  // A jump of 29 MiB (the other mirror's run on a 2-disk array at QD16):
  // ~12 tracks. The drive seeks there and waits for the sector: at least a
  // track-to-track seek, at most the seek over the jump plus one revolution;
  // far less than letting the platter carry 29 MiB past (~103 ms).
  const uint32_t mib = 1u << 20;
  const uint64_t run = 29, runs = 200;
  const uint64_t skip = 29ull * mib;
  LoopResult far = run_on(p, {.bs = mib, .qd = 16, .ios = run * runs, .run_ios = run, .skip_bytes = skip});
  const double jumps = double(runs - 1);
  const double per_jump_ms = (far.seconds() - double(far.bytes) / bw) * 1e3 / jumps;
  const double longest_seek_ms = probe.seek_curve().ms((double(skip) + 2 * track) / double(p.capacity_bytes));
  CHECK(per_jump_ms >= p.track_to_track_ms);
  CHECK(per_jump_ms <= longest_seek_ms + rot_ms);
  CHECK(per_jump_ms < 0.1 * double(skip) / bw * 1e3);

  // A jump shorter than a track: waiting for the platter to carry the gap
  // past (gap / media rate, 0.9 ms here) beats any seek (>= 1 ms track to
  // track), so the disk delivers rate x run / (run + gap).
  const uint32_t bs = 256 * 1024;
  const uint64_t gap = 256 * 1024;
  REQUIRE(double(gap) < track);
  LoopResult near = run_on(p, {.bs = bs, .qd = 16, .ios = 4 * 500, .run_ios = 4, .skip_bytes = gap});
  CHECK(near.bytes_per_s() == Approx(bw * 4.0 * bs / (4.0 * bs + double(gap))).epsilon(0.005));
}

TEST_CASE("hdd model: the io_uring path serves in arrival order", "[hdd]") {
  // schedule() must name a completion time at once, so no later command
  // can overtake: NCQ depth changes nothing there (the simulator's event
  // path is where NCQ reorders).
  DeviceProfile p = shipped("hdd-hdwg740");
  HddModel a(p), b(p);
  const double qd1 = schedule_path_iops(a, 1, p.capacity_bytes, 4096, 5000);
  const double qd16 = schedule_path_iops(b, 16, p.capacity_bytes, 4096, 5000);
  CHECK(qd16 == Approx(qd1).epsilon(0.05));
  CHECK(qd1 > 70);
  CHECK(qd1 < 90);
}

TEST_CASE("models are deterministic and thread-safe on the io_uring path", "[ssd][hdd]") {
  for (const char* name : {"nvme-gm9000", "hdd-hdwg740"}) {
    DeviceProfile p = shipped(name);
    INFO(name);
    LoopSpec s{.bs = 16384, .random = true, .span = 1ull << 32, .qd = 8, .ios = 5000, .seed = 3};
    CHECK(run_on(p, s, true).completions == run_on(p, s, true).completions);

    // Four threads feed one model, as real submitting contexts do.
    auto m = rs::test::must(make_model(p));
    std::vector<uint64_t> last(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 2000; ++i)
          last[size_t(t)] =
              std::max(last[size_t(t)], m->schedule(uint64_t(i), false, uint64_t(i) << 20, 1 << 20));
      });
    for (auto& th : threads) th.join();
    // 8000 MiB through one device cannot finish sooner than its bandwidth allows.
    const double min_ns = 8000.0 * (1 << 20) / p.seq_read_bw * 1e9;
    CHECK(double(*std::max_element(last.begin(), last.end())) >= min_ns * 0.999);
  }
}

TEST_CASE("one device reproduces the seeds' single-device (before) figures", "[seeds]") {
  auto gbs = [](const LoopResult& r) { return r.bytes_per_s() / 1e9; };
  // Seed 000.
  CHECK(gbs(run_on(shipped("nvme-gm9000"), {.bs = 1 << 20, .qd = 16, .ios = 4000})) ==
        Approx(7.031).epsilon(0.01));
  CHECK(gbs(run_on(shipped("optane-pmem"), {.bs = 1 << 20, .qd = 16, .ios = 2000})) ==
        Approx(0.85).epsilon(0.01));
  const DeviceProfile hdwg = shipped("hdd-hdwg740");
  CHECK(gbs(run_on(hdwg, {.bs = 1 << 20, .qd = 16, .ios = 2000})) == Approx(0.294).epsilon(0.01));
  // fio prints 0.001 GB/s for anything in [0.0005, 0.0015): over 64 GiB of
  // the disk (the seed-000 scenarios' span), not over the whole disk.
  const double g64 =
      gbs(run_on(hdwg, {.bs = 4096, .random = true, .span = 64ull << 30, .qd = 1, .ios = 10000}));
  CHECK(g64 >= 0.0005);
  CHECK(g64 < 0.0015);
  CHECK(gbs(run_on(hdwg, {.bs = 4096, .random = true, .span = hdwg.capacity_bytes, .qd = 1, .ios = 10000})) <
        0.0005);
  // Seed 002: 100 MB/s total, reads and writes share it.
  const DeviceProfile virtio = shipped("virtio-100mbs");
  CHECK(run_on(virtio, {.bs = 128 << 10, .qd = 4, .ios = 2000}).bytes_per_s() == Approx(100e6).epsilon(0.01));
  {
    auto m = rs::test::must(make_model(virtio));
    DeviceModel* members[] = {m.get()};
    SimBackend be(members);
    ClosedLoop r(be, {.bs = 1 << 20, .qd = 4, .ios = 500});
    ClosedLoop w(be, {.write = true, .bs = 1 << 20, .offset = 1ull << 32, .qd = 4, .ios = 500});
    r.start();
    w.start();
    while (be.in_flight()) be.reap(1);
    const double total = double(r.result().bytes + w.result().bytes) / (double(be.now_ns()) * 1e-9);
    CHECK(total == Approx(100e6).epsilon(0.01));
  }
  // Seed 003: 32 KiB random reads at QD16 over the scenario's 48 GiB file.
  const LoopSpec s003{.bs = 32768, .random = true, .span = 48ull << 30, .qd = 16, .ios = 20000};
  CHECK(run_on(shipped("ssd-sata"), s003).bytes_per_s() == Approx(454e6).epsilon(0.02));
  CHECK(run_on(shipped("hdd-old"), s003).bytes_per_s() == Approx(8.712e6).epsilon(0.10));
  CHECK(run_on(shipped("hdd-modern"), s003).bytes_per_s() == Approx(12.4e6).epsilon(0.10));
  // Seed 001: 4 KiB random writes ~0.02 ms at QD1.
  const double p5520_us =
      run_on(shipped("nvme-p5520"), {.write = true, .bs = 4096, .random = true, .qd = 1, .ios = 2000})
          .mean_latency_us();
  CHECK(p5520_us >= 10);
  CHECK(p5520_us <= 20);
}

// ---- block layer ----

namespace {

// Completes every request a fixed time after it starts and records what it
// was sent.
class Recorder final : public DeviceModel {
 public:
  explicit Recorder(uint64_t latency_ns) : latency_(latency_ns) {}
  uint64_t schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) override {
    sent.push_back({now_ns, offset, length, write});
    return now_ns + latency_;
  }
  bool rotational() const override { return false; }
  uint32_t io_opt() const override { return 0; }
  uint32_t logical_block_size() const override { return 512; }
  struct Sent {
    uint64_t at, offset;
    uint32_t length;
    bool write;
  };
  std::vector<Sent> sent;

 private:
  uint64_t latency_;
};

struct Done {
  std::vector<std::pair<uint64_t, uint64_t>> at;  // (tag, time)
  SimBackend* be = nullptr;
};

void on_done(MemberIo& io, int result) {
  auto* d = static_cast<Done*>(io.owner);
  CHECK(result == int(io.length));
  d->at.push_back({io.tag, d->be->now_ns()});
}

MemberIo read_io(Done& d, uint64_t tag, uint64_t offset, uint32_t length) {
  MemberIo io;
  io.member = 0;
  io.offset = offset;
  io.length = length;
  io.done = &on_done;
  io.owner = &d;
  io.tag = tag;
  return io;
}

}  // namespace

TEST_CASE("block layer: an I/O over max_sectors_kb is split and completes with its last piece", "[block]") {
  auto rec = std::make_unique<Recorder>(1000);
  Recorder& r = *rec;
  BlockLayer bl(std::move(rec), {.max_bytes = 128 << 10, .queue_depth = 4, .nr_requests = 8});
  DeviceModel* members[] = {&bl};
  SimBackend be(members);
  Done d{{}, &be};
  MemberIo io = read_io(d, 1, 1 << 20, 1 << 20);
  be.queue(io);
  be.submit();
  while (be.in_flight()) be.reap(1);
  // 8 pieces of 128 KiB, 4 at a time (queue_depth): done at 2 x 1000 ns.
  REQUIRE(r.sent.size() == 8);
  for (size_t i = 0; i < 8; ++i) {
    CHECK(r.sent[i].offset == (1u << 20) + i * (128u << 10));
    CHECK(r.sent[i].length == 128u << 10);
    CHECK(r.sent[i].at == (i < 4 ? 0u : 1000u));
  }
  REQUIRE(d.at.size() == 1);
  CHECK(d.at[0].second == 2000);
}

TEST_CASE("block layer: adjacent I/Os of one batch merge in the plug", "[block]") {
  auto rec = std::make_unique<Recorder>(1000);
  Recorder& r = *rec;
  BlockLayer bl(std::move(rec), {.max_bytes = 16 << 10, .queue_depth = 32, .nr_requests = 32});
  DeviceModel* members[] = {&bl};
  SimBackend be(members);
  Done d{{}, &be};
  std::vector<MemberIo> ios;
  ios.reserve(6);
  for (uint64_t i = 0; i < 6; ++i) ios.push_back(read_io(d, i, i * 4096, 4096));
  for (auto& io : ios) be.queue(io);
  be.submit();  // one batch, like one io_submit
  while (be.in_flight()) be.reap(1);
  // 6 x 4 KiB: one request of 16 KiB (max_sectors) and one of 8 KiB.
  REQUIRE(r.sent.size() == 2);
  CHECK(r.sent[0].offset == 0);
  CHECK(r.sent[0].length == 16384);
  CHECK(r.sent[1].offset == 16384);
  CHECK(r.sent[1].length == 8192);
  CHECK(d.at.size() == 6);
  for (auto& [tag, t] : d.at) CHECK(t == 1000);
  CHECK(bl.ios_arrived() == 6);
  CHECK(bl.requests_dispatched() == 2);
}

TEST_CASE("block layer: with every tag held, requests wait and merge in the scheduler queue", "[block]") {
  auto rec = std::make_unique<Recorder>(1000);
  Recorder& r = *rec;
  BlockLayer bl(std::move(rec), {.max_bytes = 1 << 20, .queue_depth = 1, .nr_requests = 2});
  DeviceModel* members[] = {&bl};
  SimBackend be(members);
  Done d{{}, &be};
  std::vector<MemberIo> ios;
  ios.reserve(8);
  ios.push_back(read_io(d, 0, 1 << 30, 4096));  // takes the only tag
  for (uint64_t i = 0; i < 3; ++i) ios.push_back(read_io(d, 1 + i, 4096 * (i + 1), 4096));  // 4K..16K
  ios.push_back(read_io(d, 4, 0, 4096));                                                    // front merge
  for (uint64_t i = 0; i < 3; ++i) ios.push_back(read_io(d, 5 + i, (2ull << 30) + i * (1 << 20), 4096));
  for (auto& io : ios) {
    be.queue(io);
    be.submit();  // each its own batch: no plug merging
  }
  while (be.in_flight()) be.reap(1);
  // The four small reads at 0..16K became one request; the three far ones
  // waited (two beyond nr_requests, as blocked submitters) in order.
  REQUIRE(r.sent.size() == 5);
  CHECK(r.sent[0].offset == 1u << 30);
  CHECK(r.sent[1].offset == 0);
  CHECK(r.sent[1].length == 4 * 4096);
  CHECK(r.sent[1].at == 1000);
  for (size_t i = 2; i < 5; ++i) {
    CHECK(r.sent[i].offset == (2ull << 30) + (i - 2) * (1 << 20));
    CHECK(r.sent[i].at == 1000 * i);
  }
  CHECK(d.at.size() == 8);
}

TEST_CASE("block layer: mq-deadline dispatches in ascending sector order, sweep after sweep", "[block]") {
  auto rec = std::make_unique<Recorder>(1000);
  Recorder& r = *rec;
  BlockLayer bl(
      std::move(rec),
      {.max_bytes = 1 << 20, .queue_depth = 1, .nr_requests = 64, .scheduler = Scheduler::MqDeadline});
  DeviceModel* members[] = {&bl};
  SimBackend be(members);
  Done d{{}, &be};
  const uint64_t M = 1 << 20;
  std::vector<MemberIo> ios = {read_io(d, 0, 10 * M, 4096), read_io(d, 1, 5 * M, 4096),
                               read_io(d, 2, 30 * M, 4096), read_io(d, 3, 20 * M, 4096)};
  for (auto& io : ios) {
    be.queue(io);
    be.submit();
  }
  while (be.in_flight()) be.reap(1);
  REQUIRE(r.sent.size() == 4);
  CHECK(r.sent[0].offset == 10 * M);
  CHECK(r.sent[1].offset == 20 * M);
  CHECK(r.sent[2].offset == 30 * M);
  CHECK(r.sent[3].offset == 5 * M);  // the next sweep
}

TEST_CASE("block layer: the io_uring path splits and holds requests for tags", "[block]") {
  auto rec = std::make_unique<Recorder>(1000);
  Recorder& r = *rec;
  BlockLayer bl(std::move(rec), {.max_bytes = 64 << 10, .queue_depth = 2, .nr_requests = 2});
  CHECK(bl.schedule(0, false, 0, 128 << 10) == 1000);   // two pieces, two tags
  CHECK(bl.schedule(0, false, 1 << 20, 4096) == 2000);  // waits for a tag
  CHECK(bl.schedule(5000, false, 2 << 20, 4096) == 6000);
  REQUIRE(r.sent.size() == 4);
  CHECK(r.sent[1].offset == 64 << 10);
}

TEST_CASE("block layer in front of an NCQ disk: split pieces and waiting requests never stall",
          "[block][hdd]") {
  DeviceProfile p = shipped("hdd-hdwg740");
  p.max_sectors_kb = 256;
  p.queue_depth = 2;
  p.nr_requests = 4;
  auto m = rs::test::must(make_model(p));
  // Random 1 MiB reads at QD8: 4 pieces each, 2 at the disk, the rest waiting.
  LoopResult r =
      run_model(*m, {.bs = 1 << 20, .random = true, .span = 64ull << 30, .qd = 8, .ios = 2000}, true);
  CHECK(r.ios == 2000);
  CHECK(std::is_sorted(r.completions.begin(), r.completions.end()));
  auto* bl = dynamic_cast<BlockLayer*>(m.get());
  REQUIRE(bl);
  CHECK(bl->requests_dispatched() >= 4 * 2000 - 4);
  // Sequential 1 MiB through 256 KiB requests still streams at the media rate.
  auto seq = rs::test::must(make_model(p));
  CHECK(run_model(*seq, {.bs = 1 << 20, .qd = 8, .ios = 1000}).bytes_per_s() ==
        Approx(p.seq_read_bw).epsilon(0.01));
}
