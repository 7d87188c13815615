// Workload runs on an open array's session: a bench run and a check as two
// clients of one session in one process (the data verified), the run's
// telemetry from the session's sampler, and a session closed while a run
// writes, which leaves a clean array as mdadm reads it.
#include <fcntl.h>
#include <unistd.h>

#include <thread>

#include "session_test_util.hpp"

using namespace rs;
using namespace rs::session;
using namespace rs::session::test;

namespace {

// The data areas of two RAID1 members hold the same bytes (md's mirror
// rule), read straight from the files.
bool mirrors_equal(const std::string& a, const std::string& b, uint64_t from, uint64_t bytes) {
  const int fa = ::open(a.c_str(), O_RDONLY | O_CLOEXEC), fb = ::open(b.c_str(), O_RDONLY | O_CLOEXEC);
  std::vector<char> x(1 << 20), y(1 << 20);
  bool same = fa >= 0 && fb >= 0;
  for (uint64_t at = from; same && at < from + bytes; at += x.size())
    same = ::pread(fa, x.data(), x.size(), off_t(at)) == ssize_t(x.size()) &&
           ::pread(fb, y.data(), y.size(), off_t(at)) == ssize_t(y.size()) && x == y;
  ::close(fa);
  ::close(fb);
  return same;
}

// A new array's session that stays open when its clients leave.
std::shared_ptr<ArraySession> kept_open_session(const TempDir& dir, int level, int disks) {
  SessionOptions so;
  so.keep_open = true;
  return open_session(make_array(dir, level, disks), so);
}

}  // namespace

TEST_CASE("two clients on one session: a bench run writes and verifies while a check runs",
          "[session][bench]") {
  TempDir dir("rs-session");
  const auto paths = make_array(dir, 1, 2);
  SessionOptions so;
  so.sample_hz = 20;
  auto s = open_session(paths, so);
  const uint64_t assembles = raid::Array::assemble_count();
  // The administrator's client, from which the check is asked.
  auto admin = s->attach(ClientKind::cli, "admin");
  REQUIRE(admin);

  auto spec = bench_spec({"--name=v", "--rw=randwrite", "--bs=4k", "--iodepth=16", "--size=24m", "--direct=1",
                          "--verify=crc32c", "--verify_fatal=1"});
  spec.session = s;
  workload::BenchNotes notes;
  auto bench = workload::BenchSession::open(std::move(spec), &notes);
  INFO((bench ? std::string() : bench.error().message));
  REQUIRE(bench);
  workload::RunProgress progress;
  std::atomic<int> samples{0};
  std::atomic<uint64_t> first_t{~0ull};
  workload::RunOutcome out;
  std::thread runner([&] {
    out = (*bench)->run(
        progress,
        [&](const telemetry::Sample& smp) {
          if (samples++ == 0) first_t = smp.t_ns;
        },
        &notes);
  });
  // A third of the writes done: the check starts beside the run.
  while (progress.ios.load() < (24u << 20) / 4096 / 3 && !progress.cancel)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  auto task = s->check(false).wait();
  INFO((task ? std::string() : task.error().message));
  REQUIRE(task);
  // Both are the session's clients now (and the admin who asked).
  bool bench_seen = false, task_seen = false;
  for (const auto& c : s->clients()) {
    bench_seen |= c.kind == ClientKind::bench && c.name == "bench v";
    task_seen |= c.kind == ClientKind::task && c.name == "check";
  }
  CHECK(bench_seen);
  CHECK((task_seen || (*task)->finished()));
  require_ok((*task)->wait());
  runner.join();

  CHECK(out.verify_errors == 0);
  REQUIRE(out.results.jobs.size() == 1);
  CHECK(out.results.jobs[0].error == 0);
  CHECK(out.results.jobs[0].write.io_bytes == 24ull << 20);
  CHECK(out.results.jobs[0].read.io_bytes == 24ull << 20);  // the verify pass read every block back
  // The run's telemetry came from the session's sampler, timed from the run's start.
  CHECK(samples > 0);
  CHECK(first_t < 1'000'000'000ull);
  // The check ran under the resync barrier beside the writes: md counts no mismatch.
  const auto tasks = s->tasks();
  REQUIRE(!tasks.empty());
  CHECK(tasks.back().kind == "check");
  CHECK(tasks.back().finished);
  CHECK(tasks.back().result.ok());
  CHECK(tasks.back().mismatches == 0);
  CHECK(raid::Array::assemble_count() == assembles);  // one owner: no second assemble

  require_ok((*bench)->close());
  CHECK(s->is_open());  // the admin is still attached
  admin->detach();      // the last client: the session closes cleanly
  require_ok(s->close().wait());
  auto reopened = raid::Array::assemble(levels::builtin(), paths, {});
  REQUIRE(reopened);
  const uint64_t from = (*reopened)->shape().data_offset * 512, bytes = 24ull << 20;
  require_ok((*reopened)->close());
  reopened->reset();
  CHECK(mirrors_equal(paths[0], paths[1], from, bytes));
}

TEST_CASE("a session closed while a bench run writes leaves a clean array (mdadm --examine)",
          "[session][bench][needs-tool]") {
  rs::test::require_tool(mdadm_path(), "mdadm --examine of members after a close mid-run");
  for (const int level : {1, 10}) {
    DYNAMIC_SECTION("raid" << level) {
      TempDir dir("rs-session");
      const int disks = level == 1 ? 2 : 4;
      const auto paths = make_array(dir, level, disks);
      auto s = open_session(paths);
      auto spec = bench_spec({"--name=w", "--rw=randwrite", "--bs=16k", "--iodepth=8", "--direct=1",
                              "--time_based", "--runtime=120"});
      spec.session = s;
      workload::BenchNotes notes;
      auto bench = workload::BenchSession::open(std::move(spec), &notes);
      REQUIRE(bench);
      workload::RunProgress progress;
      workload::RunOutcome out;
      std::thread runner([&] {
        out = (*bench)->run(progress, nullptr, &notes);
        // The run's owner leaves once the run ended (here: stopped by the close).
        (void)(*bench)->close();
      });
      while (progress.bytes.load() < (4u << 20)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      // Mid-run the members say active: writes are in flight.
      for (const auto& p : paths) CHECK(mdadm_examine(p)["State"] == "active");
      const auto closing = s->close();
      const auto closed = closing.wait_for(std::chrono::seconds(60));
      REQUIRE(closed);
      require_ok(*closed);
      runner.join();
      CHECK(progress.cancel.load());  // the close stopped the run
      CHECK(out.results.jobs.at(0).write.io_bytes >= (4u << 20));
      // Every member: clean, the same event count, every role active.
      std::string events;
      for (const auto& p : paths) {
        auto kv = mdadm_examine(p);
        INFO(p);
        CHECK(kv["State"] == "clean");
        CHECK(kv["Array State"].rfind(std::string(size_t(disks), 'A') + " ", 0) ==
              0);  // "AA ('A' == active...
        CHECK(kv["Checksum"].find("correct") != std::string::npos);
        if (events.empty()) events = kv["Events"];
        CHECK(kv["Events"] == events);
      }
      CHECK(!events.empty());
    }
  }
}

TEST_CASE("the read policy travels typed: bench -> session -> mirror, no name parsed past the edge",
          "[session][bench][typed]") {
  TempDir dir("rs-session");
  auto s = kept_open_session(dir, 1, 2);
  // The session's typed command: the mirror gets the PolicyId.
  require_ok(s->set_tunable(balance::kReadPolicy, balance::PolicyId::BtrfsQlen).wait());
  CHECK(*s->tunable(std::string(balance::kReadPolicy.name)) == "btrfs-qlen");

  // A run asking for a policy carries the enum (BenchSpec::read_policy);
  // the mirror has it before the first I/O and the event names it.
  auto spec = bench_spec({"--name=r", "--rw=randread", "--bs=4k", "--iodepth=4", "--size=4m", "--direct=1"});
  spec.session = s;
  spec.read_policy = balance::PolicyId::BtrfsRr;
  workload::BenchNotes notes;
  auto bench = workload::BenchSession::open(std::move(spec), &notes);
  INFO((bench ? std::string() : bench.error().message));
  REQUIRE(bench);
  CHECK(*s->tunable(std::string(balance::kReadPolicy.name)) == "btrfs-rr");
  const auto events = s->events_since(0);
  REQUIRE(events.size() >= 2);
  CHECK(events.back().name == "read_policy");
  CHECK(events.back().value == "btrfs-rr");
  workload::RunProgress progress;
  const auto out = (*bench)->run(progress, nullptr, &notes);
  INFO(out.error);
  CHECK(out.ok);
  REQUIRE(out.results.jobs.at(0).raidscope);
  CHECK(out.results.jobs.at(0).raidscope->policy == "btrfs-rr");
  require_ok((*bench)->close());
  bench->reset();
  require_ok(s->close().wait());
}

TEST_CASE("a typed read policy on a level without mirrors is a usage error before any I/O",
          "[session][bench][typed]") {
  TempDir dir("rs-session");
  auto s = kept_open_session(dir, 5, 3);
  auto spec = bench_spec({"--name=r", "--rw=read", "--bs=4k", "--size=1m"});
  spec.session = s;
  spec.read_policy = balance::PolicyId::MdRr;
  workload::BenchNotes notes;
  auto bench = workload::BenchSession::open(std::move(spec), &notes);
  REQUIRE_FALSE(bench);
  CHECK(bench.error().code == Errc::invalid_argument);
  CHECK_THAT(bench.error().message, Catch::Contains("read_policy"));
  require_ok(s->close().wait());
}
