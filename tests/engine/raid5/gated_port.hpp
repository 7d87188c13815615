// A RAID5 array's port whose member I/O a test holds at the "disks"
// (GateBackend), and helpers to write through it and turn its context.
#pragma once
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "raid/array_port.hpp"
#include "raid5_test_util.hpp"

namespace rs::raid5::test {

// Holds every member I/O queued while closed (as if the disks were slow);
// open() lets them through. With reads_pass, only writes are held.
// Single-threaded, as every backend.
class GateBackend final : public io::Backend {
 public:
  explicit GateBackend(std::unique_ptr<io::Backend> inner) : inner_(std::move(inner)) {}
  void open() {
    open_ = true;
    for (io::MemberIo* io : held_) inner_->queue(*io);
    held_.clear();
    inner_->submit();
  }
  size_t held() const { return held_.size(); }
  bool reads_pass = false;

  void queue(io::MemberIo& io) override {
    if (open_ || (reads_pass && !io.write))
      inner_->queue(io);
    else
      held_.push_back(&io);
  }
  void submit() override { inner_->submit(); }
  void queue_timer(io::MemberIo& io, uint64_t delay_ns) override { inner_->queue_timer(io, delay_ns); }
  unsigned reap(unsigned min_complete) override {
    return inner_->reap(open_ || reads_pass ? min_complete : 0);
  }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override {
    return inner_->reap_until(open_ || reads_pass ? min_complete : 0, deadline_ns);
  }
  void replace_member(int index, io::MemberDevice* dev) override { inner_->replace_member(index, dev); }
  uint64_t now_ns() override { return inner_->now_ns(); }
  uint64_t batch_now_ns() override { return inner_->batch_now_ns(); }
  unsigned in_flight() const override { return inner_->in_flight() + unsigned(held_.size()); }
  bool arm_wakeup(int) override { return false; }  // the test turns the context itself
  bool virtual_time() const override { return inner_->virtual_time(); }
  std::string describe() const override { return "gate(" + inner_->describe() + ")"; }

 private:
  std::unique_ptr<io::Backend> inner_;
  std::vector<io::MemberIo*> held_;
  bool open_ = false;
};

inline double raid5_value(raid::Array& arr, const std::string& name) {
  std::vector<telemetry::Section> sections;
  personality(arr).read_sections(sections);
  for (const auto& s : sections)
    for (const auto& [key, value] : s.values)
      if (s.name == "raid5" && key == name) return value;
  FAIL("no raid5 value " << name);
  return -1;
}

struct Write {
  OwnedIo o;
  Completion c;
  Write(TestPort& tp, uint64_t offset, const std::vector<uint8_t>& data) : o(tp, uint32_t(data.size())) {
    std::memcpy(o.buf.data(), data.data(), data.size());
    o.io.write = true;
    o.io.offset = offset;
    o.io.length = uint32_t(data.size());
    o.io.buffer = o.buf.data();
    o.io.done = completion_done;
    o.io.owner = &c;
    tp.port().submit(o.io);
  }
};

// Turns the port's context (completing nothing the gate holds) until
// `done` holds: the array's first write waits for its superblock to be
// marked active on the metadata thread. At most 10 s.
template <class Pred>
bool settle_until(TestPort& tp, Pred done) {
  const uint64_t until = tp.backend().now_ns() + 10'000'000'000ull;
  while (!done()) {
    if (tp.backend().now_ns() >= until) return false;
    tp.context().run_once(1, tp.backend().now_ns() + 1'000'000);
  }
  return true;
}

}  // namespace rs::raid5::test
