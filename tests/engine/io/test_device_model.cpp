// Device profiles (strict parsing) and the SSD / HDD timing models, measured
// the way fio would: a closed loop at a queue depth on the simulator.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

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
  auto p = find_profile(name, {kProfileDir}, &err);
  INFO(err);
  REQUIRE(p);
  return *p;
}

LoopResult run_on(const DeviceProfile& p, const LoopSpec& s, bool record = false) {
  auto m = make_model(p);
  DeviceModel* members[] = {m.get()};
  SimBackend be(members);
  return ClosedLoop::run(be, s, record);
}

// Latency of one I/O on an idle device.
double single_io_us(DeviceModel& m, uint64_t now_ns, bool write, uint64_t offset, uint32_t length) {
  return double(m.schedule(now_ns, write, offset, length) - now_ns) * 1e-3;
}

json ssd_base() {
  return json{{"name", "t"},
              {"source", "test"},
              {"rotational", false},
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
              {"source", "test"},
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
  auto p = parse_profile(j.dump(), "test.json", &err);
  INFO(err);
  REQUIRE(p);
  return *p;
}

}  // namespace

TEST_CASE("every shipped profile loads and builds its model", "[profile]") {
  ProfileList list = list_profiles(kProfileDir);
  for (const auto& e : list.errors) FAIL_CHECK(e);
  std::set<std::string> names;
  for (const DeviceProfile& p : list.profiles) {
    names.insert(p.name);
    INFO(p.name);
    CHECK(p.origin == kProfileDir + "/" + p.name + ".json");
    CHECK(p.source.find("seed 00") != std::string::npos);
    auto m = make_model(p);
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
}

TEST_CASE("find_profile names what it could not find", "[profile]") {
  std::string err;
  CHECK_FALSE(find_profile("no-such-disk", {kProfileDir}, &err));
  CHECK(err.find("no-such-disk") != std::string::npos);
  CHECK(err.find(kProfileDir) != std::string::npos);
  CHECK_FALSE(find_profile("../etc/passwd", {kProfileDir}, &err));
  CHECK(find_profile("ssd-sata", {"/nonexistent", kProfileDir}, &err));
}

TEST_CASE("profile parser accepts defaults and both timing models", "[profile]") {
  DeviceProfile s = parse_ok(ssd_base());
  CHECK(s.model == TimingModel::Ssd);
  CHECK(s.scale == 1.0);
  CHECK(s.logical_block_size == 512);
  CHECK(s.io_opt == 0);
  DeviceProfile h = parse_ok(hdd_base());
  CHECK(h.model == TimingModel::Hdd);
  CHECK(h.ncq_depth == 1);
  json v = ssd_base();
  v["rotational"] = true;
  v["model"] = "ssd";
  CHECK(parse_ok(v).rotational);
}

TEST_CASE("profile parser rejects bad input naming file, key and value", "[profile]") {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
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
      {"scale 0", [](json& j) { j["scale"] = 0; }, false, {"\"scale\"", "= 0"}},
      {"scale above 1", [](json& j) { j["scale"] = 1.5; }, false, {"\"scale\"", "1.5"}},
      {"scale too small for the rates",
       [](json& j) {
         j["seq_write_bw"] = 1e6;
         j["scale"] = 1e-4;
       },
       false,
       {"\"scale\"", "1e-04", "below 1000 bytes/s"}},
      {"missing source", [](json& j) { j.erase("source"); }, false, {"missing required key \"source\""}},
      {"missing iops",
       [](json& j) { j.erase("write_iops"); },
       false,
       {"missing required key \"write_iops\""}},
      {"bool as string",
       [](json& j) { j["rotational"] = "yes"; },
       false,
       {"\"rotational\"", "\"yes\"", "true or false"}},
      {"number as string",
       [](json& j) { j["seq_write_bw"] = "fast"; },
       false,
       {"\"seq_write_bw\"", "\"fast\"", "a number"}},
      {"fractional integer",
       [](json& j) { j["parallelism"] = 2.5; },
       false,
       {"\"parallelism\"", "2.5", "an integer"}},
      {"negative integer", [](json& j) { j["parallelism"] = -1; }, false, {"\"parallelism\"", "-1"}},
      {"zero parallelism", [](json& j) { j["parallelism"] = 0; }, false, {"\"parallelism\"", "= 0"}},
      {"hdd key on ssd",
       [](json& j) { j["rpm"] = 7200; },
       false,
       {"\"rpm\"", "7200", "only for the hdd model"}},
      {"unknown model", [](json& j) { j["model"] = "tape"; }, false, {"\"model\"", "\"tape\""}},
      {"io_opt not a block multiple", [](json& j) { j["io_opt"] = 1000; }, false, {"\"io_opt\"", "1000"}},
      {"odd block size",
       [](json& j) { j["logical_block_size"] = 1000; },
       false,
       {"\"logical_block_size\"", "1000"}},
      {"bad name", [](json& j) { j["name"] = "a/b"; }, false, {"\"name\"", "\"a/b\""}},
      {"ssd key on hdd",
       [](json& j) { j["parallelism"] = 4; },
       true,
       {"\"parallelism\"", "only for the ssd model"}},
      {"hdd without rpm", [](json& j) { j.erase("rpm"); }, true, {"missing required key \"rpm\""}},
      {"hdd without capacity",
       [](json& j) { j.erase("capacity_bytes"); },
       true,
       {"missing required key \"capacity_bytes\""}},
      {"rpm out of range", [](json& j) { j["rpm"] = 100; }, true, {"\"rpm\"", "100"}},
      {"seek curve not square-root shaped",
       [](json& j) { j["avg_seek_ms"] = 16; },
       true,
       {"\"avg_seek_ms\"", "16"}},
      {"full stroke below track to track",
       [](json& j) { j["full_stroke_ms"] = 0.5; },
       true,
       {"\"full_stroke_ms\"", "0.5"}},
      {"ncq depth 0", [](json& j) { j["ncq_depth"] = 0; }, true, {"\"ncq_depth\"", "0"}},
  };
  for (const Case& c : cases) {
    json j = c.hdd ? hdd_base() : ssd_base();
    c.edit(j);
    std::string err;
    INFO(c.what);
    CHECK_FALSE(parse_profile(j.dump(), "dir/test.json", &err));
    INFO(err);
    CHECK(err.rfind("dir/test.json: ", 0) == 0);
    for (const std::string& s : c.expect) CHECK(err.find(s) != std::string::npos);
  }

  std::string err;
  CHECK_FALSE(parse_profile("{\"name\": \"x\",", "broken.json", &err));
  CHECK(err.find("broken.json: not valid JSON") != std::string::npos);
  CHECK_FALSE(parse_profile("[1, 2]", "array.json", &err));
  CHECK(err.find("array.json: expected a JSON object") != std::string::npos);
  std::string dup = ssd_base().dump();
  dup.insert(1, "\"scale\": 0.5, \"scale\": 1, ");
  CHECK_FALSE(parse_profile(dup, "dup.json", &err));
  CHECK(err.find("\"scale\" appears more than once") != std::string::npos);
  CHECK_FALSE(load_profile_file("/nonexistent/p.json", &err));
  CHECK(err.find("/nonexistent/p.json") != std::string::npos);
}

TEST_CASE("validate_profile checks a profile edited in code", "[profile]") {
  DeviceProfile p = shipped("nvme-gm9000");
  p.scale = 0.25;
  CHECK(validate_profile(p, nullptr));
  p.scale = 0;
  std::string err;
  CHECK_FALSE(validate_profile(p, &err));
  CHECK(err.find("\"scale\"") != std::string::npos);
  CHECK_THROWS_AS(make_model(p), std::invalid_argument);
}

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

TEST_CASE("ssd model: QD1 latency is the base latency plus the transfer", "[ssd]") {
  DeviceProfile p = shipped("nvme-gm9000");
  LoopResult r = run_on(p, {.bs = 4096, .random = true, .qd = 1, .ios = 2000});
  const double xfer_us = 4096 / p.seq_read_bw * 1e6;
  CHECK(r.mean_latency_us() == Approx(p.base_read_latency_us + xfer_us).epsilon(0.001));
  LoopResult w = run_on(p, {.write = true, .bs = 4096, .random = true, .qd = 1, .ios = 2000});
  CHECK(w.mean_latency_us() == Approx(p.base_write_latency_us + 4096 / p.seq_write_bw * 1e6).epsilon(0.001));
}

TEST_CASE("ssd model: saturated throughput meets the bandwidth and IOPS ceilings", "[ssd]") {
  for (const char* name : {"nvme-gm9000", "optane-pmem", "ssd-sata", "nvme-p5520"}) {
    DeviceProfile p = shipped(name);
    INFO(name);
    LoopResult seq = run_on(p, {.bs = 1 << 20, .qd = 32, .ios = 4000});
    CHECK(seq.bytes_per_s() == Approx(p.seq_read_bw).epsilon(0.02));
    LoopResult seqw = run_on(p, {.write = true, .bs = 1 << 20, .qd = 32, .ios = 4000});
    CHECK(seqw.bytes_per_s() == Approx(p.seq_write_bw).epsilon(0.02));
    // Enough depth that neither latency nor slots limit: the IOPS clock (or
    // the pipe, where 4 KiB at seq bandwidth is the lower ceiling) does.
    const double ceiling = std::min(p.read_iops, p.seq_read_bw / 4096);
    LoopResult rnd = run_on(p, {.bs = 4096, .random = true, .qd = 1024, .ios = 200000});
    CHECK(rnd.iops() == Approx(ceiling).epsilon(0.03));
  }
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

TEST_CASE("scale slows bandwidth and IOPS, not latency", "[ssd][hdd]") {
  DeviceProfile p = shipped("nvme-gm9000");
  p.scale = 0.5;
  CHECK(run_on(p, {.bs = 1 << 20, .qd = 16, .ios = 2000}).bytes_per_s() ==
        Approx(p.seq_read_bw * 0.5).epsilon(0.02));
  CHECK(run_on(p, {.bs = 4096, .random = true, .qd = 1024, .ios = 100000}).iops() ==
        Approx(p.read_iops * 0.5).epsilon(0.03));
  DeviceProfile h = shipped("hdd-hdwg740");
  const double full = run_on(h, {.bs = 4096, .random = true, .span = h.capacity_bytes, .ios = 5000}).iops();
  h.scale = 0.5;
  CHECK(run_on(h, {.bs = 1 << 20, .qd = 16, .ios = 500}).bytes_per_s() ==
        Approx(h.seq_read_bw * 0.5).epsilon(0.01));
  // Actuator time doubles; the base latency (0.05 ms of ~6.3) does not.
  CHECK(run_on(h, {.bs = 4096, .random = true, .span = h.capacity_bytes, .ios = 5000}).iops() ==
        Approx(full * 0.5).epsilon(0.02));
}

TEST_CASE("sub-4K write penalty applies only to writes not covering whole 4 KiB units", "[ssd][hdd]") {
  DeviceProfile p = shipped("nvme-p5520");
  const double base_w = p.base_write_latency_us, base_r = p.base_read_latency_us;
  const double pen = p.sub4k_write_penalty_us;
  auto lat = [&](bool write, uint64_t off, uint32_t len) {
    auto m = make_model(p);
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
  auto m = make_model(g);
  CHECK(single_io_us(*m, 0, true, 12288, 3584) < 20);

  // The rotational model applies it too (a 512e disk's read-modify-write).
  json h = hdd_base();
  h["sub4k_write_penalty_us"] = 8333;
  DeviceProfile hp = parse_ok(h);
  HddModel a(hp), b(hp);
  CHECK(single_io_us(a, 0, true, 0, 3584) - single_io_us(b, 0, true, 0, 4096) ==
        Approx(8333 - 512 / hp.seq_write_bw * 1e6).margin(0.01));
}

TEST_CASE("hdd model: sequential continuation needs no seek nor rotation", "[hdd]") {
  DeviceProfile p = shipped("hdd-hdwg740");
  LoopResult r = run_on(p, {.bs = 4096, .qd = 1, .ios = 1000});
  CHECK(r.mean_latency_us() == Approx(p.base_read_latency_us + 4096 / p.seq_read_bw * 1e6).epsilon(0.01));
  LoopResult big = run_on(p, {.bs = 1 << 20, .qd = 16, .ios = 2000});
  CHECK(big.bytes_per_s() == Approx(p.seq_read_bw).epsilon(0.01));
}

TEST_CASE("hdd model: random QD1 costs seek plus half a rotation", "[hdd]") {
  DeviceProfile p = shipped("hdd-old");
  HddModel probe(p);
  const double expected_ms = probe.seek_curve().mean_random_ms() + probe.rotation_ms() / 2 +
                             4096 / p.seq_read_bw * 1e3 + p.base_read_latency_us * 1e-3;
  LoopResult r = run_on(p, {.bs = 4096, .random = true, .span = p.capacity_bytes, .qd = 1, .ios = 40000});
  CHECK(r.iops() == Approx(1000 / expected_ms).epsilon(0.02));
  // Over a short span the seeks shrink toward track-to-track.
  LoopResult s = run_on(p, {.bs = 4096, .random = true, .span = 64 << 20, .qd = 1, .ios = 20000});
  CHECK(s.iops() > r.iops() * 1.2);
}

TEST_CASE("hdd model: positioning from the head", "[hdd]") {
  DeviceProfile p = parse_ok(hdd_base());
  const double half_rot_us = 60e6 / p.rpm / 2;
  HddModel m(p);
  // First I/O from offset 0 to 1/3 of the disk: average seek + half rotation.
  const uint64_t third = p.capacity_bytes / 3;
  double t = single_io_us(m, 0, false, third, 4096);
  CHECK(t == Approx(8500 + half_rot_us + 4096 / p.seq_read_bw * 1e6).epsilon(1e-3));
  // A small forward gap: the platter carries it past, no seek.
  const uint64_t now = 1'000'000'000;
  t = single_io_us(m, now, false, third + 4096 + 65536, 4096);
  CHECK(t == Approx((65536 + 4096) / p.seq_read_bw * 1e6).epsilon(1e-3));
  // Going back the same distance needs a seek and rotation.
  t = single_io_us(m, 2 * now, false, third, 4096);
  CHECK(t > 1000 + half_rot_us);

  // head_position moves at completion, not at scheduling.
  HddModel h(p);
  h.schedule(0, false, 1 << 20, 8192);
  CHECK(h.head_position() == 0);
  h.complete(1 << 20, 8192);
  CHECK(h.head_position() == (1 << 20) + 8192);
}

TEST_CASE("hdd model: command queueing shortens the rotational wait", "[hdd]") {
  json j = hdd_base();
  j["ncq_depth"] = 32;
  DeviceProfile ncq = parse_ok(j);
  DeviceProfile fifo = parse_ok(hdd_base());
  const LoopSpec qd16{.bs = 4096, .random = true, .span = ncq.capacity_bytes, .qd = 16, .ios = 20000};
  const LoopSpec qd1{.bs = 4096, .random = true, .span = ncq.capacity_bytes, .qd = 1, .ios = 20000};
  const double fifo1 = run_on(fifo, qd1).iops(), fifo16 = run_on(fifo, qd16).iops();
  CHECK(fifo16 == Approx(fifo1).epsilon(0.01));  // in order: depth buys nothing
  CHECK(run_on(ncq, qd1).iops() == Approx(fifo1).epsilon(0.001));
  HddModel probe(ncq);
  const double expect16 =
      1000 / (probe.seek_curve().mean_random_ms() + probe.rotation_ms() / 17 + 4096 / ncq.seq_read_bw * 1e3);
  CHECK(run_on(ncq, qd16).iops() == Approx(expect16).epsilon(0.02));
}

TEST_CASE("hdd model: seeded random rotational latency is deterministic", "[hdd]") {
  DeviceProfile p = parse_ok(hdd_base());
  auto run = [&](uint64_t seed) {
    HddModel m(p, seed);
    std::vector<uint64_t> out;
    uint64_t now = 0;
    for (int i = 0; i < 20000; ++i) {
      const uint64_t off = (uint64_t(i) * 2654435761u % 1000000) * 4096;
      now = m.schedule(now, false, off, 4096);
      out.push_back(now);
    }
    return out;
  };
  const auto a = run(7), b = run(7), c = run(8), expected = run(0);
  CHECK(a == b);
  CHECK(a != c);
  // Same distribution as the expected-value mode: the totals agree.
  CHECK(double(a.back()) == Approx(double(expected.back())).epsilon(0.02));
}

TEST_CASE("models are deterministic and thread-safe", "[ssd][hdd]") {
  for (const char* name : {"nvme-gm9000", "hdd-hdwg740"}) {
    DeviceProfile p = shipped(name);
    INFO(name);
    LoopSpec s{.bs = 16384, .random = true, .span = 1ull << 32, .qd = 8, .ios = 5000, .seed = 3};
    CHECK(run_on(p, s, true).completions == run_on(p, s, true).completions);

    // Four threads feed one model, as real submitting contexts do.
    auto m = make_model(p);
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

TEST_CASE("one device reproduces the seeds' single-device figures", "[seeds]") {
  auto gbs = [](const LoopResult& r) { return r.bytes_per_s() / 1e9; };
  // Seed 000.
  CHECK(gbs(run_on(shipped("nvme-gm9000"), {.bs = 1 << 20, .qd = 16, .ios = 4000})) ==
        Approx(7.031).epsilon(0.01));
  CHECK(gbs(run_on(shipped("nvme-gm9000"), {.bs = 4096, .random = true, .qd = 1, .ios = 4000})) ==
        Approx(0.084).epsilon(0.01));
  CHECK(gbs(run_on(shipped("optane-pmem"), {.bs = 1 << 20, .qd = 16, .ios = 2000})) ==
        Approx(0.85).epsilon(0.01));
  const DeviceProfile hdwg = shipped("hdd-hdwg740");
  CHECK(gbs(run_on(hdwg, {.bs = 1 << 20, .qd = 16, .ios = 2000})) == Approx(0.294).epsilon(0.01));
  // fio prints 0.001 GB/s for anything in [0.0005, 0.0015): over the whole
  // disk and over a short span alike.
  for (uint64_t span : {hdwg.capacity_bytes, uint64_t(1) << 30}) {
    const double g = gbs(run_on(hdwg, {.bs = 4096, .random = true, .span = span, .qd = 1, .ios = 20000}));
    CHECK(g >= 0.0005);
    CHECK(g < 0.0015);
  }
  // Seed 002: 100 MB/s total, reads and writes share it.
  const DeviceProfile virtio = shipped("virtio-100mbs");
  CHECK(run_on(virtio, {.bs = 128 << 10, .qd = 4, .ios = 2000}).bytes_per_s() == Approx(100e6).epsilon(0.01));
  {
    auto m = make_model(virtio);
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
  // Seed 003: 32 KiB random reads at QD16.
  CHECK(run_on(shipped("ssd-sata"), {.bs = 32768, .random = true, .span = 8ull << 30, .qd = 16, .ios = 50000})
            .iops() == Approx(13900).epsilon(0.02));
  const DeviceProfile old_hdd = shipped("hdd-old"), modern = shipped("hdd-modern");
  CHECK(run_on(old_hdd, {.bs = 32768, .random = true, .span = old_hdd.capacity_bytes, .qd = 16, .ios = 20000})
            .iops() == Approx(265).epsilon(0.03));
  CHECK(run_on(modern, {.bs = 32768, .random = true, .span = modern.capacity_bytes, .qd = 16, .ios = 20000})
            .iops() == Approx(378).epsilon(0.03));
  // Seed 001: 4 KiB random writes ~0.02 ms at QD1.
  const double p5520_us =
      run_on(shipped("nvme-p5520"), {.write = true, .bs = 4096, .random = true, .qd = 1, .ios = 2000})
          .mean_latency_us();
  CHECK(p5520_us >= 10);
  CHECK(p5520_us <= 20);
}
