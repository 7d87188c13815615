// posixaio where glibc's POSIX AIO cannot run (an array, whose I/O is
// RaidScope's own): PosixAioPort keeps glibc's rule, one request in flight
// per file, the rest queued in the order issued, every one counting as in
// flight for the job; each completion reaches the job's own callback, and a
// request that waited goes to the kernel at once.
#include <catch2/catch.hpp>
#include <vector>

#include "io/context.hpp"
#include "workload/posix_aio_port.hpp"

using namespace rs;
using namespace rs::workload;

namespace {

// A backend that only counts submit() calls (the port's own pushes).
class CountingBackend final : public io::Backend {
 public:
  int submits = 0;
  void queue(io::MemberIo&) override {}
  void submit() override { ++submits; }
  void queue_timer(io::MemberIo&, uint64_t) override {}
  unsigned reap(unsigned) override { return 0; }
  uint64_t now_ns() override { return 0; }
  unsigned in_flight() const override { return 0; }
  std::string describe() const override { return "counting"; }
};

// The target's port as the job sees it: records what reached it; the test
// completes those I/Os by hand.
class RecordingPort final : public TargetPort {
 public:
  explicit RecordingPort(io::IoContext& c) : context_(c) {}
  std::vector<TargetIo*> started;  // in the order they reached the target
  int in_flight = 0, most_in_flight = 0;
  void prepare(TargetIo&, uint32_t) override {}
  void submit(TargetIo& io) override {
    started.push_back(&io);
    most_in_flight = std::max(most_in_flight, ++in_flight);
  }
  io::IoContext& context() override { return context_; }
  void complete(TargetIo& io, int result) {
    --in_flight;
    io.done(io, result);
  }

 private:
  io::IoContext& context_;
};

struct JobSide {
  std::vector<std::pair<uint64_t, int>> completed;  // offset, result
};

void job_done(TargetIo& io, int result) {
  static_cast<JobSide*>(io.owner)->completed.push_back({io.offset, result});
}

}  // namespace

TEST_CASE("posixaio port: one request in flight per file, the rest in order", "[engines][aio]") {
  auto backend = std::make_unique<CountingBackend>();
  CountingBackend* counting = backend.get();
  io::IoContext context(std::move(backend), "test");
  auto inner = std::make_unique<RecordingPort>(context);
  RecordingPort* target = inner.get();

  SECTION("one target: four requests, one at a time, first issued first served") {
    PosixAioPort port(std::move(inner), 1);
    JobSide job;
    std::vector<TargetIo> ios(4);
    for (size_t i = 0; i < ios.size(); ++i) {
      ios[i].offset = 4096 * (10 + i);
      ios[i].length = 4096;
      ios[i].done = job_done;
      ios[i].owner = &job;
      port.submit(ios[i]);
    }
    REQUIRE(target->started.size() == 1);
    CHECK(target->started[0] == &ios[0]);
    for (size_t i = 0; i < ios.size(); ++i) {
      REQUIRE(target->started.size() == i + 1);
      target->complete(*target->started[i], 4096);
    }
    CHECK(target->most_in_flight == 1);
    REQUIRE(job.completed.size() == 4);
    for (size_t i = 0; i < 4; ++i) CHECK(job.completed[i].first == 4096 * (10 + i));
    // Each request that had waited was pushed to the kernel when it started.
    CHECK(counting->submits == 3);
    // The job's callbacks are its own again.
    for (auto& io : ios) {
      CHECK(io.done == job_done);
      CHECK(io.owner == &job);
    }
  }

  SECTION("an I/O issued from a completion queues behind those already waiting") {
    PosixAioPort port(std::move(inner), 1);
    struct Reissuing {
      PosixAioPort* port;
      std::vector<uint64_t> order;
      int reissues = 1;
    } job{&port, {}, 1};
    auto done = [](TargetIo& io, int) {
      auto* j = static_cast<Reissuing*>(io.owner);
      j->order.push_back(io.offset);
      if (j->reissues-- > 0) {
        io.offset += 1 << 20;
        j->port->submit(io);
      }
    };
    std::vector<TargetIo> ios(2);
    for (size_t i = 0; i < 2; ++i) {
      ios[i].offset = 4096 * i;
      ios[i].done = done;
      ios[i].owner = &job;
      port.submit(ios[i]);
    }
    target->complete(*target->started[0], 0);  // reissues ios[0] at 1 MiB
    REQUIRE(target->started.size() == 2);
    CHECK(target->started[1] == &ios[1]);  // the one that waited goes first
    target->complete(*target->started[1], 0);
    REQUIRE(target->started.size() == 3);
    CHECK(target->started[2]->offset == (1u << 20));
    target->complete(*target->started[2], 0);
    CHECK(job.order == std::vector<uint64_t>{0, 4096, 1 << 20});
    CHECK(target->most_in_flight == 1);
  }

  SECTION("a multi-file job: the files run in parallel, each one at a time") {
    PosixAioPort port(std::move(inner), 3);
    JobSide job;
    std::vector<TargetIo> ios(6);
    for (size_t i = 0; i < ios.size(); ++i) {
      ios[i].offset = (uint64_t(i % 3) << kFileShift) + 4096 * i;
      ios[i].done = job_done;
      ios[i].owner = &job;
      port.submit(ios[i]);
    }
    REQUIRE(target->started.size() == 3);  // one per file
    for (size_t f = 0; f < 3; ++f) CHECK(target->started[f]->offset >> kFileShift == f);
    while (target->in_flight > 0)
      target->complete(*target->started[target->started.size() - size_t(target->in_flight)], 0);
    CHECK(target->started.size() == 6);
    CHECK(target->most_in_flight == 3);
    CHECK(job.completed.size() == 6);
  }
}
