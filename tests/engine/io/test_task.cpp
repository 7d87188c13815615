// Tasks: progress and cancel are visible from any thread, finish() happens
// once and wakes every waiter, wait_for() gives up without a result, and a
// piecewise job on a ContextThread stops at the next piece after cancel().
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "io/context.hpp"
#include "io/task.hpp"
#include "io/uring_backend.hpp"

using namespace rs::io;
using namespace std::chrono_literals;
using rs::Errc;

TEST_CASE("task: progress and the cancel flag", "[task]") {
  auto task = make_task("rebuild md0");
  CHECK(task->name() == "rebuild md0");
  CHECK_FALSE(task->finished());
  CHECK_FALSE(task->cancel_requested());
  CHECK(task->progress().done == 0);
  CHECK(task->progress().total == 0);
  task->set_total(1000);
  task->set_done(250);
  CHECK(task->progress().done == 250);
  CHECK(task->progress().total == 1000);
  task->cancel();
  CHECK(task->cancel_requested());
  CHECK_FALSE(task->finished());  // cancel only asks; the work finishes
}

TEST_CASE("task: wait_for() returns nothing while the task runs", "[task]") {
  auto task = make_task("long");
  CHECK_FALSE(task->wait_for(20ms).has_value());
  CHECK_FALSE(task->wait_for(0ms).has_value());
  task->finish({});
  auto r = task->wait_for(0ms);
  REQUIRE(r.has_value());
  CHECK(r->ok());
}

TEST_CASE("task: finish() from another thread wakes every waiter with its result", "[task]") {
  auto task = make_task("check");
  std::vector<std::thread> waiters;
  std::atomic<int> woken_with_error{0};
  for (int i = 0; i < 4; ++i)
    waiters.emplace_back([&] {
      rs::Status s = task->wait();
      if (!s.ok() && s.error().code == Errc::io_error) woken_with_error.fetch_add(1);
    });
  std::thread worker([&] {
    std::this_thread::sleep_for(20ms);
    task->finish(rs::make_error(Errc::io_error, "m1.img: read failed at 4096"));
  });
  rs::Status s = task->wait();
  worker.join();
  for (auto& w : waiters) w.join();
  CHECK(task->finished());
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == Errc::io_error);
  CHECK(s.error().message == "m1.img: read failed at 4096");
  CHECK(woken_with_error.load() == 4);
}

TEST_CASE("task: finish() counts once and the first result stands", "[task]") {
  auto task = make_task("repair");
  task->finish({});
  task->finish(rs::make_error(Errc::internal, "late"));
  CHECK(task->wait().ok());
  SECTION("racing finishers: exactly one result, every waiter sees it") {
    auto raced = make_task("raced");
    std::vector<std::thread> finishers;
    for (int i = 0; i < 4; ++i)
      finishers.emplace_back([&, i] { raced->finish(rs::make_error(Errc::io_error, std::to_string(i))); });
    for (auto& f : finishers) f.join();
    const std::string first = raced->wait().error().message;
    CHECK(raced->wait().error().message == first);
    CHECK(raced->wait_for(0ms)->error().message == first);
  }
}

TEST_CASE("task: a piecewise job on a context thread stops at the next piece after cancel()",
          "[task][context]") {
  ContextThread thread("job", [] { return std::make_unique<SyncBackend>(std::span<MemberDevice* const>{}); });
  REQUIRE(thread.status().ok());
  constexpr uint64_t kPieces = 1'000'000'000;  // far more than can run before cancel
  auto task = make_task("rebuild");
  task->set_total(kPieces);
  struct Job {
    ContextThread* thread;
    TaskHandle task;
    uint64_t done = 0;
    void piece() {
      // One piece per turn of the loop, so posts (and the cancel flag) are
      // seen between pieces, as a rebuild does.
      if (task->cancel_requested()) {
        task->finish(rs::make_error(Errc::cancelled, "rebuild stopped at piece " + std::to_string(done)));
        return;
      }
      task->set_done(++done);
      thread->post([this] { piece(); });
    }
  } job{&thread, task};
  thread.post([&] { job.piece(); });
  // Wait until it is under way, then cancel.
  for (int i = 0; i < 10000 && task->progress().done < 100; ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(task->progress().done >= 100);
  task->cancel();
  auto r = task->wait_for(10s);
  REQUIRE(r.has_value());
  REQUIRE_FALSE(r->ok());
  CHECK(r->error().code == Errc::cancelled);
  thread.stop();
  CHECK(job.done < kPieces);
  CHECK(task->progress().done == job.done);  // progress says where it stopped
}
