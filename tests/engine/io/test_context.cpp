// I/O contexts: posted work runs on the owner in the order posted, a post
// wakes an owner asleep in the kernel (io_uring) or in poll() (the pread
// fallback), run_once() honours its deadline, a ContextThread drains on
// stop(), and a virtual-time context lets time pass to the deadline.
//
// Cases that need io_uring itself are tagged [needs-uring] and exit 77
// (skipped) where it is disabled. Times are never asserted: a wait that
// must end early is told apart by what is still in flight, and the few
// bounds that keep a broken build from hanging are seconds long.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <semaphore>
#include <thread>
#include <vector>

#include "io/context.hpp"
#include "io/sim_backend.hpp"
#include "io/task.hpp"
#include "io/uring_backend.hpp"
#include "real_files.hpp"

using namespace rs::io;
using namespace std::chrono_literals;
using namespace rs::io::test;

namespace {

constexpr uint64_t kMs = 1'000'000;

std::unique_ptr<Backend> no_member_uring() {
  return uring({}, 8);
}
std::unique_ptr<Backend> no_member_sync() {
  return std::make_unique<SyncBackend>(std::span<MemberDevice* const>{});
}

// Keeps `depth` reads of a `blocks`-block file in flight, each completion
// queueing the next read, until `stopping`.
struct ReadLoop {
  Backend& backend;
  unsigned blocks;
  AlignedBuffer buf;
  std::vector<MemberIo> ios;
  bool stopping = false;
  uint64_t completed = 0, bad = 0;

  ReadLoop(Backend& b, unsigned depth, unsigned file_blocks)
      : backend(b),
        blocks(file_blocks),
        buf(rs::test::must(AlignedBuffer::allocate(size_t(depth) * kBlock))),
        ios(depth) {
    for (unsigned i = 0; i < depth; ++i) {
      ios[i].member = 0;
      ios[i].offset = uint64_t(i % blocks) * kBlock;
      ios[i].length = kBlock;
      ios[i].buffer = buf.data() + size_t(i) * kBlock;
      ios[i].done = on_done;
      ios[i].owner = this;
      backend.queue(ios[i]);
    }
    backend.submit();
  }
  static void on_done(MemberIo& io, int result) {
    auto& l = *static_cast<ReadLoop*>(io.owner);
    ++l.completed;
    if (result != int(kBlock)) ++l.bad;
    if (l.stopping) return;
    // Queued only: the owner's next reap submits the batch.
    io.offset = (io.offset / kBlock + l.ios.size()) % l.blocks * kBlock;
    l.backend.queue(io);
  }
};

// One read of a one-block file on io_uring whose emulated disk holds the
// completion for `latency_ns`: in flight long after the read itself is done.
struct HeldRead {
  TempFile file{1};
  std::unique_ptr<MemberDevice> dev = open_file(file);
  IoContext ctx;
  Reads reads{1};
  explicit HeldRead(uint64_t latency_ns) : ctx(make(*dev, latency_ns), "held") {
    reads.queue_all(ctx.backend());
  }
  static std::unique_ptr<Backend> make(MemberDevice& dev, uint64_t latency_ns) {
    dev.set_model(std::make_shared<FixedLatencyModel>(latency_ns));
    MemberDevice* members[] = {&dev};
    return uring(members, 8);
  }
  void finish() {
    while (ctx.backend().in_flight() > 0) ctx.run_once(1);
    reads.check_all();
  }
};

// Posts `rounds` closures one at a time from another thread, each only after
// the previous one ran, while the owner sleeps in run_once(1) with a 10 s
// deadline and nothing else to wake it. A post lost between the owner's
// last look at the queue and its sleep shows as a run_once() that lasted
// until its deadline.
void ping_pong(IoContext& ctx, unsigned rounds) {
  std::atomic<unsigned> ran{0};
  std::atomic<bool> give_up{false}, poster_done{false};
  std::binary_semaphore ran_one{0};
  std::thread poster([&] {
    for (unsigned i = 0; i < rounds && !give_up.load(); ++i) {
      ctx.post([&] {
        ran.fetch_add(1);
        ran_one.release();
      });
      if (!ran_one.try_acquire_for(30s)) break;
    }
    poster_done.store(true);
  });
  unsigned expired = 0, spurious = 0;
  while (ran.load() < rounds && expired == 0) {
    const uint64_t deadline = monotonic_ns() + 10'000 * kMs;
    if (ctx.run_once(1, deadline) == 0) ++spurious;
    if (monotonic_ns() >= deadline) ++expired;
  }
  give_up.store(true);
  while (!poster_done.load()) ctx.run_once(1, monotonic_ns() + 10 * kMs);
  poster.join();
  INFO(ctx.backend().describe() << ": " << spurious << " early returns with nothing run");
  CHECK(expired == 0);
  CHECK(ran.load() == rounds);
}

// run_once(1, now + 50 ms) with nothing that can complete: returns nothing,
// not before the deadline.
void check_deadline_alone(IoContext& ctx) {
  const uint64_t deadline = monotonic_ns() + 50 * kMs;
  CHECK(ctx.run_once(1, deadline) == 0);
  CHECK(monotonic_ns() >= deadline);
}

}  // namespace

TEST_CASE("io context: posted closures run on the owner in the order posted", "[context]") {
  IoContext ctx(no_member_sync(), "order");
  std::vector<int> seen;
  for (int i = 0; i < 1000; ++i) ctx.post([&seen, i] { seen.push_back(i); });
  CHECK(ctx.posted_pending() == 1000);
  CHECK(seen.empty());  // nothing runs before the owner turns the loop
  CHECK(ctx.run_once(0) == 1000);
  REQUIRE(seen.size() == 1000);
  for (int i = 0; i < 1000; ++i) CHECK(seen[size_t(i)] == i);
  CHECK(ctx.posted_pending() == 0);

  SECTION("work posted by posted work runs at the next turn, after what was queued before it") {
    seen.clear();
    ctx.post([&] {
      seen.push_back(1);
      ctx.post([&] { seen.push_back(3); });
    });
    ctx.post([&] { seen.push_back(2); });
    CHECK(ctx.run_once(0) == 2);
    CHECK(ctx.run_once(0) == 1);
    CHECK(seen == std::vector<int>{1, 2, 3});
  }
}

TEST_CASE(
    "io context: posts from many threads while the owner waits in the kernel with I/O in flight all run, "
    "once, in "
    "each poster's order",
    "[context][needs-uring]") {
  require_uring();
  TempFile file(64);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  IoContext ctx(uring(members, 32), "many-posters");
  ReadLoop loop(ctx.backend(), 16, 64);

  constexpr unsigned kThreads = 3, kPosts = 20000;
  std::vector<unsigned> ran(kThreads, 0);  // owner thread only
  unsigned out_of_order = 0, total = 0;
  std::vector<std::thread> posters;
  for (unsigned t = 0; t < kThreads; ++t)
    posters.emplace_back([&, t] {
      for (unsigned i = 0; i < kPosts; ++i) {
        ctx.post([&, t, i] {
          if (ran[t] != i) ++out_of_order;
          ++ran[t];
          ++total;
        });
        if (i % 256 == 0) std::this_thread::yield();  // let the owner fall asleep now and then
      }
    });
  // A lost post would keep the loop going; give up after a minute.
  const uint64_t give_up = monotonic_ns() + 60'000 * kMs;
  while (total < kThreads * kPosts && monotonic_ns() < give_up) ctx.run_once(1);
  for (auto& p : posters) p.join();
  loop.stopping = true;
  while (ctx.backend().in_flight() > 0) ctx.run_once(1);

  CHECK(total == kThreads * kPosts);
  for (unsigned t = 0; t < kThreads; ++t) CHECK(ran[t] == kPosts);
  CHECK(out_of_order == 0);
  CHECK(ctx.posted_pending() == 0);
  CHECK(ctx.run_once(0) == 0);  // nothing ran twice or late
  CHECK(loop.completed > 0);
  CHECK(loop.bad == 0);
}

TEST_CASE("io context: a post always wakes an owner asleep in io_uring_enter with nothing in flight",
          "[context][needs-uring]") {
  require_uring();
  IoContext ctx(no_member_uring(), "wake-uring");
  ping_pong(ctx, 3000);
}

TEST_CASE("io context: a post always wakes an owner asleep in poll() (pread fallback)", "[context]") {
  IoContext ctx(no_member_sync(), "wake-sync");
  ping_pong(ctx, 3000);
}

TEST_CASE("io context: a post wakes run_once() blocked on emulated-disk I/O that is not due yet",
          "[context][needs-uring]") {
  require_uring();
  // The read itself is done in microseconds; the emulated disk holds its
  // completion for 2 s, so only the post can end the wait sooner.
  HeldRead held(2000 * kMs);
  IoContext& ctx = held.ctx;
  std::atomic<bool> posted_ran{false};
  std::thread poster([&] {
    std::this_thread::sleep_for(50ms);
    ctx.post([&] { posted_ran.store(true); });
  });
  const unsigned n = ctx.run_once(1);  // no deadline
  poster.join();
  CHECK(posted_ran.load());
  CHECK(n == 1);                          // the post, not the read
  CHECK(ctx.backend().in_flight() == 1);  // woken before the disk was done
  held.finish();
}

TEST_CASE("io context: run_once() returns by its deadline with nothing in flight", "[context][needs-uring]") {
  require_uring();
  IoContext ctx(no_member_uring(), "deadline-uring");
  check_deadline_alone(ctx);
  SECTION("a past deadline or min_complete 0 does not wait") {
    CHECK(ctx.run_once(1, monotonic_ns() - 1) == 0);
    CHECK(ctx.run_once(0) == 0);
  }
}

TEST_CASE("io context: run_once() returns by its deadline with nothing in flight (pread fallback)",
          "[context]") {
  IoContext ctx(no_member_sync(), "deadline-sync");
  check_deadline_alone(ctx);
}

TEST_CASE("io context: run_once() returns by its deadline while emulated-disk I/O is stuck",
          "[context][needs-uring]") {
  require_uring();
  HeldRead held(1000 * kMs);
  check_deadline_alone(held.ctx);
  CHECK(held.ctx.backend().in_flight() == 1);  // the deadline ended the wait, not the disk
  held.finish();
}

TEST_CASE("io context: I/O queued by posted work completes through run_once()", "[context]") {
  TempFile file(16);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto backend = GENERATE(0, 1);  // 0: pread fallback built directly, 1: io_uring where allowed
  RealBackend real =
      backend == 0 ? RealBackend{std::make_unique<SyncBackend>(members), {}} : make_real_backend(members, 16);
  const std::string note = real.fallback_note;
  IoContext ctx(std::move(real.backend), "posted-io");
  INFO(ctx.backend().describe() << " " << note);
  Reads reads(16);
  std::thread poster([&] { ctx.post([&] { reads.queue_all(ctx.backend()); }); });
  poster.join();
  unsigned turns = 0;
  do {
    ctx.run_once(1, monotonic_ns() + 10'000 * kMs);
  } while (ctx.backend().in_flight() > 0 && ++turns < 1000);
  reads.check_all();
}

TEST_CASE("context thread: stop() runs the work posted before it and completes the I/O in flight",
          "[context]") {
  TempFile file(8);
  auto dev = open_file(file);
  // Held 200 ms by the emulated disk (io_uring), so stop() finds it in flight.
  auto model = std::make_shared<FixedLatencyModel>(200 * kMs);
  dev->set_model(model);
  MemberDevice* members[] = {dev.get()};
  std::string note;
  ContextThread thread("drain", [&] {
    auto real = make_real_backend(members, 16);
    note = real.fallback_note;
    return std::move(real.backend);
  });
  REQUIRE(thread.status().ok());
  Reads reads(8);
  std::vector<int> order;  // written on the context thread, read after stop()
  bool on_thread = true;
  thread.post([&] {
    on_thread = on_thread && thread.on_thread();
    reads.queue_all(thread.context().backend());
  });
  for (int i = 0; i < 100; ++i)
    thread.post([&, i] {
      order.push_back(i);
      // Work posted during the drain runs too.
      if (i == 99) thread.post([&] { order.push_back(100); });
    });
  CHECK_FALSE(thread.on_thread());
  thread.stop();  // joins: what the thread wrote is visible from here on
  INFO(note);
  CHECK(on_thread);
  reads.check_all();
  REQUIRE(order.size() == 101);
  for (int i = 0; i <= 100; ++i) CHECK(order[size_t(i)] == i);
  if (note.empty()) CHECK(model->completed.load() == 8);  // io_uring holds and completes on the model
  thread.stop();                                          // a second stop is harmless
}

TEST_CASE("context thread: stop() from posted work ends the loop once what is posted has run", "[context]") {
  ContextThread thread("self-stop", no_member_sync);
  REQUIRE(thread.status().ok());
  std::vector<int> ran;  // context thread, read after the join
  thread.post([&] {
    ran.push_back(1);
    thread.post([&] { ran.push_back(3); });  // posted before the drain: runs
    thread.stop();                           // only asks: it cannot join itself
    ran.push_back(2);
  });
  thread.stop();  // joins, whether the thread's own stop() came first or not
  REQUIRE(ran.size() == 3);
  CHECK(ran == std::vector<int>{1, 2, 3});
}

TEST_CASE("context thread: a backend factory that fails is reported, not thrown", "[context]") {
  ContextThread failing("no-ring",
                        []() -> std::unique_ptr<Backend> { throw std::runtime_error("io_uring is off"); });
  REQUIRE_FALSE(failing.status().ok());
  CHECK(failing.status().error().code == rs::Errc::unsupported);
  CHECK(failing.status().error().message.find("no-ring") != std::string::npos);
  CHECK(failing.status().error().message.find("io_uring is off") != std::string::npos);
  failing.post([] {});  // dropped, no crash
  ContextThread empty("empty", [] { return std::unique_ptr<Backend>(); });
  CHECK_FALSE(empty.status().ok());
}

TEST_CASE("io context: virtual time passes to the deadline and never waits", "[context][sim]") {
  FixedLatencyModel model(100'000);  // every I/O takes 100 us of virtual time
  DeviceModel* models[] = {&model};
  IoContext ctx(std::make_unique<SimBackend>(models), "sim");
  Backend& b = ctx.backend();
  REQUIRE(b.virtual_time());

  // Nothing in flight, no deadline: returns at once, time stands still.
  CHECK(ctx.run_once(1) == 0);
  CHECK(b.now_ns() == 0);
  // Nothing in flight, a deadline: time passes to it.
  CHECK(ctx.run_once(1, 1'000'000) == 0);
  CHECK(b.now_ns() == 1'000'000);

  Reads reads(1);
  reads.queue_all(b);  // due at 1.1 ms
  // Due after the deadline: not run, time stops at the deadline.
  CHECK(ctx.run_once(1, 1'050'000) == 0);
  CHECK(b.now_ns() == 1'050'000);
  CHECK(b.in_flight() == 1);
  // Due before the deadline: runs at its own time, which is where time stops.
  CHECK(ctx.run_once(1, 5'000'000) == 1);
  CHECK(b.now_ns() == 1'100'000);
  CHECK(reads.done[0].calls == 1);
  CHECK(reads.done[0].result == int(kBlock));
  // A past deadline does not move time; min_complete 0 does not either.
  CHECK(ctx.run_once(1, 10) == 0);
  CHECK(ctx.run_once(0, 9'000'000) == 0);
  CHECK(b.now_ns() == 1'100'000);
  // Without a deadline it reaps like reap(1): time moves to the completion.
  reads.queue_all(b);  // due at 1.2 ms
  CHECK(ctx.run_once(1) == 1);
  CHECK(b.now_ns() == 1'200'000);
  // Work posted from another thread runs at the next turn.
  int ran = 0;
  std::thread([&] { ctx.post([&] { ++ran; }); }).join();
  CHECK(ctx.run_once(1, 2'000'000) == 1);
  CHECK(ran == 1);
}

TEST_CASE("context thread: a virtual-time backend runs its I/O, then sleeps until a post", "[context][sim]") {
  FixedLatencyModel model(100'000);
  DeviceModel* models[] = {&model};
  ContextThread thread("sim", [&] { return std::make_unique<SimBackend>(models); });
  REQUIRE(thread.status().ok());
  struct Batch {
    std::vector<MemberIo> ios = std::vector<MemberIo>(4);
    unsigned completed = 0;
    TaskHandle task = make_task("sim reads");
  } batch;
  thread.post([&] {
    for (auto& io : batch.ios) {
      io.member = 0;
      io.length = kBlock;
      io.owner = &batch;
      io.done = [](MemberIo& io, int) {
        auto& b = *static_cast<Batch*>(io.owner);
        if (++b.completed == b.ios.size()) b.task->finish({});
      };
      thread.context().backend().queue(io);
    }
  });
  auto reads_done = batch.task->wait_for(10s);
  REQUIRE(reads_done);
  CHECK(reads_done->ok());
  // Idle now (nothing in flight): a post must still wake it.
  auto later = make_task("later post");
  thread.post([&] { later->finish({}); });
  CHECK(later->wait_for(10s).has_value());
  thread.stop();
  CHECK(batch.completed == 4);
}
