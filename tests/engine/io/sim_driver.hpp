// A tiny closed-loop load generator for the simulator tests: keeps `qd`
// member I/Os in flight on one SimBackend until `ios` have completed, like
// fio with iodepth=qd, and reports throughput and latency in virtual time.
#pragma once
#include <cstdint>
#include <vector>

#include "io/sim_backend.hpp"

namespace rs::io::test {

struct LoopSpec {
  bool write = false;
  uint32_t bs = 4096;
  uint64_t offset = 0;         // first byte of the region
  bool random = false;         // uniformly random bs-aligned offsets, else sequential
  uint64_t span = 1ull << 30;  // bytes of the region
  unsigned qd = 1;
  uint64_t ios = 10000;
  int member = 0;   // first member
  int members = 1;  // I/O goes round-robin over [member, member + members)
  uint64_t seed = 1;
  // Sequential only: after every `run_ios` I/Os the stream jumps `skip_bytes`
  // forward (what one mirror of an md-rr RAID1 reads while the other
  // mirrors read the skipped spans); 0: no jumps.
  uint64_t run_ios = 0, skip_bytes = 0;
};

struct LoopResult {
  uint64_t ios = 0, bytes = 0;
  uint64_t start_ns = 0, end_ns = 0;
  double latency_sum_ns = 0;
  std::vector<uint64_t> completions;  // virtual completion times, in order

  double seconds() const { return double(end_ns - start_ns) * 1e-9; }
  double iops() const { return double(ios) / seconds(); }
  double bytes_per_s() const { return double(bytes) / seconds(); }
  double mean_latency_us() const { return latency_sum_ns / double(ios) * 1e-3; }
};

class ClosedLoop {
 public:
  ClosedLoop(SimBackend& be, const LoopSpec& spec, bool record = false)
      : be_(be), spec_(spec), slots_(spec.qd), record_(record) {
    rng_ = spec.seed;
    for (auto& io : slots_) {
      io.owner = this;
      io.done = &ClosedLoop::on_done;
    }
  }

  // Starts the I/Os; completions happen as the backend is reaped.
  void start() {
    result_.start_ns = be_.now_ns();
    for (auto& io : slots_)
      if (issued_ < spec_.ios) issue(io);
  }
  bool finished() const { return result_.ios == spec_.ios; }
  const LoopResult& result() const { return result_; }

  // Runs one loop alone on the backend to the end.
  static LoopResult run(SimBackend& be, const LoopSpec& spec, bool record = false) {
    ClosedLoop loop(be, spec, record);
    loop.start();
    while (be.in_flight()) be.reap(1);
    return loop.result_;
  }
  ClosedLoop(const ClosedLoop&) = delete;  // the I/Os point back at it
  ClosedLoop& operator=(const ClosedLoop&) = delete;

 private:
  uint64_t next_random() {
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  void issue(MemberIo& io) {
    const uint64_t blocks = spec_.span / spec_.bs;
    io.member = spec_.member + int(issued_ % uint64_t(spec_.members));
    io.write = spec_.write;
    io.length = spec_.bs;
    if (spec_.random)
      io.offset = spec_.offset + (next_random() % blocks) * spec_.bs;
    else if (spec_.run_ios)
      io.offset = spec_.offset + issued_ * spec_.bs + (issued_ / spec_.run_ios) * spec_.skip_bytes;
    else
      io.offset = spec_.offset + ((issued_ / uint64_t(spec_.members)) % blocks) * spec_.bs;
    io.tag = be_.now_ns();
    ++issued_;
    be_.queue(io);
  }
  static void on_done(MemberIo& io, int result) {
    auto* self = static_cast<ClosedLoop*>(io.owner);
    LoopResult& r = self->result_;
    if (result >= 0) r.bytes += uint64_t(result);
    ++r.ios;
    r.end_ns = self->be_.now_ns();
    r.latency_sum_ns += double(r.end_ns - io.tag);
    if (self->record_) r.completions.push_back(r.end_ns);
    if (self->issued_ < self->spec_.ios) self->issue(io);
  }

  SimBackend& be_;
  LoopSpec spec_;
  std::vector<MemberIo> slots_;
  bool record_;
  uint64_t issued_ = 0;
  uint64_t rng_ = 0;
  LoopResult result_;
};

}  // namespace rs::io::test
