// Clients attach to an open array and detach without closing it; the last
// one leaving closes it unless it is kept open; a close asks every client to
// stop and finishes once they have gone; commands after it are answered,
// refused; attach and detach from many threads at once (run under TSan).
#include <atomic>
#include <thread>

#include "../../common/result_helpers.hpp"
#include "raid/member_superblock.hpp"
#include "raid/sync_io.hpp"
#include "session_test_util.hpp"

using namespace rs;
using namespace rs::session;
using namespace rs::session::test;

TEST_CASE("clients: listed while attached; the last to leave closes the session", "[session][clients]") {
  TempDir dir("rs-session");
  auto s = open_session(make_array(dir, 1, 2));
  auto gui = s->attach(ClientKind::gui, "dashboard");
  REQUIRE(gui);
  auto cli = s->attach(ClientKind::cli, "check");
  REQUIRE(cli);
  auto listed = s->clients();
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].kind == ClientKind::gui);
  CHECK(listed[0].name == "dashboard");
  CHECK(std::string(client_kind_name(listed[1].kind)) == "cli");
  CHECK(listed[0].since_ns <= listed[1].since_ns);
  CHECK(listed[0].id != listed[1].id);
  // The client's own I/O counts (what an export fills per connection).
  gui->io().reads.fetch_add(3);
  CHECK(s->clients()[0].io.reads == 3);

  gui->detach();
  CHECK(s->is_open());  // another client is attached
  CHECK(s->clients().size() == 1);
  cli->detach();
  // The last one left: the session closes by itself (on its command thread).
  for (int i = 0; i < 3000 && s->is_open(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(!s->is_open());
  const auto closed = s->close().wait_for(std::chrono::seconds(30));
  REQUIRE(closed);
  require_ok(*closed);
  CHECK(s->tunables().empty());  // readers say closed, nothing dangles
  auto late = s->attach(ClientKind::cli, "late");
  REQUIRE(!late);
  CHECK(late.error().code == Errc::busy);
}

TEST_CASE("clients: a session kept open outlives its clients; commands after close are refused",
          "[session][clients]") {
  TempDir dir("rs-session");
  SessionOptions o;
  o.keep_open = true;
  auto s = open_session(make_array(dir, 1, 2), o);
  { auto c = s->attach(ClientKind::bench, "run"); }
  CHECK(s->is_open());
  require_ok(s->set_tunable("read_policy", "md-rr").wait());
  CHECK(*s->tunable("read_policy") == "md-rr");
  // A refused value is the command's answer, nothing changed.
  auto bad = s->set_tunable("read_policy", "sideways").wait();
  REQUIRE(!bad);
  CHECK(bad.error().code == Errc::invalid_argument);
  CHECK(*s->tunable("read_policy") == "md-rr");
  const auto events = s->events_since(0);
  REQUIRE(!events.empty());
  CHECK(events.back().name == "read_policy");
  CHECK(events.back().value == "md-rr");

  require_ok(s->close().wait());
  // The event log as the close left it stays readable (the CLI reports member failures after the close).
  const auto kept = s->events_since(0);
  REQUIRE(!kept.empty());
  CHECK(kept.size() == events.size());
  CHECK(kept.back().value == "md-rr");
  auto after = s->fail_member(0, "test").wait();
  REQUIRE(!after);
  CHECK(after.error().code == Errc::cancelled);
  auto check = s->check(false).wait();
  REQUIRE(!check);
  CHECK(check.error().code == Errc::cancelled);
}

TEST_CASE("clients: close asks each client to stop and waits until it has detached", "[session][clients]") {
  TempDir dir("rs-session");
  auto s = open_session(make_array(dir, 1, 2));
  std::atomic<bool> asked{false};
  auto c = s->attach(ClientKind::export_, "nbd test", [&] { asked = true; });
  REQUIRE(c);
  // The client writes through its own port, so the array is active (dirty).
  {
    raid::SyncIo io(c->array());
    std::vector<uint8_t> data(1 << 20, 0x5a);
    require_ok(io.write(0, data.data(), data.size()));
  }
  auto closing = s->close();
  // Not closed while the client is attached: it is asked to stop first.
  while (!asked) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(c->stop_requested());
  CHECK(!closing.wait_for(std::chrono::milliseconds(100)));
  CHECK(s->attach(ClientKind::cli, "another").error().code == Errc::busy);
  c->detach();
  const auto done = closing.wait_for(std::chrono::seconds(30));
  REQUIRE(done);
  require_ok(*done);
  // The status says how the close left it.
  const SessionStatus after = s->status();
  CHECK(!after.open);
  CHECK(after.level == "raid1");
  CHECK(after.state == "clean");
  CHECK(after.clients.empty());
  // Closed clean: assembling again needs no resync.
  auto again = raid::Array::assemble(levels::builtin(), s->opened_with());
  REQUIRE(again);
  CHECK(!(*again)->resync_pending());
  CHECK((*again)->state_text() == "clean");
}

TEST_CASE("clients: attach and detach from many threads while commands run", "[session][clients][threads]") {
  TempDir dir("rs-session");
  SessionOptions o;
  o.keep_open = true;
  o.sample_hz = 50;
  auto s = open_session(make_array(dir, 1, 2), o);
  constexpr int kThreads = 6, kRounds = 150;
  // Catch2's assertions are not thread-safe: the threads count, the test checks.
  std::atomic<int> attached{0}, refused{0}, failed_sets{0};
  std::atomic<bool> over{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        auto c = s->attach(ClientKind::export_, "conn " + std::to_string(t));
        if (!c) {
          ++refused;
          continue;
        }
        ++attached;
        c->io().writes.fetch_add(1, std::memory_order_relaxed);
        if (i % 10 == 0) (void)s->clients();
      }
    });
  // Readers and commands beside them.
  std::thread reader([&] {
    uint64_t seq = 0;
    while (!over) {
      (void)s->status();
      for (auto& smp : s->samples_since(seq)) seq = smp->seq;
      (void)s->tunables();
    }
  });
  std::thread commander([&] {
    for (int i = 0; i < 50; ++i)
      if (!s->set_tunable("read_policy", i % 2 ? "md-rr" : "md-legacy").wait()) ++failed_sets;
  });
  auto sub = s->subscribe([](const telemetry::Sample&) {});
  for (auto& th : threads) th.join();
  commander.join();
  over = true;
  reader.join();
  CHECK(attached == kThreads * kRounds);
  CHECK(refused == 0);
  CHECK(failed_sets == 0);
  CHECK(s->clients().empty());
  CHECK(s->is_open());  // kept open
  sub.reset();
  require_ok(s->close().wait());
}

TEST_CASE("clients: once only viewers remain, the array is marked clean and still takes writes",
          "[session][clients]") {
  TempDir dir("rs-session");
  const auto paths = make_array(dir, 1, 2);
  auto s = open_session(paths);
  auto gui = s->attach(ClientKind::gui, "dashboard");
  REQUIRE(gui);
  // What the members' superblocks say: clean is md's resync_offset at the maximum.
  auto on_disk_clean = [&] {
    bool clean = true;
    for (const auto& p : paths) {
      std::string err;
      auto dev = rs::test::or_empty(io::MemberDevice::open(p, io::OpenMode::ReadOnly), &err);
      REQUIRE(dev);
      auto sb = raid::read_superblock(*dev);
      REQUIRE(sb.ok());
      clean &= sb->resync_offset == ondisk::kMaxSector;
    }
    return clean;
  };
  auto write_once = [&] {
    auto w = s->attach(ClientKind::export_, "writer");
    REQUIRE(w);
    raid::SyncIo io(w->array());
    std::vector<uint8_t> data(64 << 10, 0x33);
    require_ok(io.write(1 << 20, data.data(), data.size()));
    CHECK(!on_disk_clean());  // active while a writer is attached
  };
  for (int round = 0; round < 2; ++round) {
    write_once();  // the writer detached: only the viewer is left
    for (int i = 0; i < 3000 && s->status().state != "clean"; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(s->status().state == "clean");
    CHECK(on_disk_clean());
    CHECK(s->is_open());
  }
  // The viewer leaving closes the session on its command thread; the test
  // ends only after that close (the process's static destructors must not
  // meet it, engine/session/README.md).
  gui->detach();
  require_ok(s->close().wait());
}

TEST_CASE("clients: the last reference may go on a command or a task's thread; the array closes clean",
          "[session][clients][threads]") {
  TempDir dir("rs-session");
  const auto paths = make_array(dir, 1, 2);
  SECTION("dropped while a command is queued") {
    auto s = open_session(paths);
    auto reply = s->set_tunable("read_policy", "md-rr");
    auto closed = s->when_closed();
    s.reset();  // the queued command holds the session only while it runs
    const auto st = reply.wait_for(std::chrono::seconds(30));
    REQUIRE(st);  // answered either way: set, or refused as closed
    require_ok(closed.wait());
  }
  SECTION("dropped while a check runs: the task is the last client") {
    auto s = open_session(paths);
    auto task = s->check(false).wait();
    REQUIRE(task);
    io::TaskHandle t = *task;
    auto closed = s->when_closed();
    s.reset();
    require_ok(t->wait());
    require_ok(closed.wait());  // closed on the task's thread, clean mark written
  }
  // Whoever held it last closed it: the members are free and clean.
  std::shared_ptr<ArraySession> again;
  for (int i = 0; i < 3000 && !again; ++i) {
    auto r = ArraySession::open(paths);
    if (r)
      again = *r;
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(again);
  CHECK(again->status().state == "clean");
}

// md's --remove as a session command: a working member is refused (busy in
// md) and nothing changes; a failed one leaves its slot (missing, its file
// released, an event, the superblocks' event count moved on), and an add
// fills that slot with a rebuild; reassembled from the two members, the
// array is whole.
TEST_CASE("commands: remove takes only a failed member out of its slot", "[session][clients]") {
  TempDir dir("rs-session");
  auto paths = make_array(dir, 1, 2, 16ull << 20);
  SessionOptions o;
  o.keep_open = true;
  auto s = open_session(paths, o);
  auto busy = s->remove_member(1).wait();
  REQUIRE(!busy);
  CHECK(busy.error().code == Errc::refused);
  CHECK(s->status().members[1].state == "active sync");
  CHECK(!s->remove_member(5).wait());
  require_ok(s->fail_member(1, "test").wait());
  require_ok(s->remove_member(1).wait());
  const auto st = s->status();
  CHECK(st.members[1].state == "missing");
  CHECK(st.members[1].path.empty());
  CHECK(st.working == 1);
  bool removed = false;
  for (const auto& e : s->events_since(0))
    removed |= e.kind == "member" && e.name == paths[1] && e.value == "removed";
  CHECK(removed);
  // Nothing left to remove in the slot; the add fills it.
  CHECK(!s->remove_member(1).wait());
  const std::string fresh = dir.file("new.img");
  raid::AddOptions add;
  add.create_files_bytes = 16ull << 20;
  auto task = s->add_member(fresh, add).wait();
  INFO((task ? std::string() : task.error().message));
  REQUIRE(task);
  require_ok((*task)->wait());
  require_ok(s->close().wait());
  auto again = open_session({paths[0], fresh});
  CHECK(again->status().working == 2);
  CHECK(again->status().state == "clean");
  require_ok(again->close().wait());
}
