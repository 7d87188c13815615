// A minimal Linux block layer in front of an emulated device, so that the
// requests reaching the device have the shapes the kernel would send:
//  - split: an I/O larger than max_sectors_kb becomes several requests
//    (bio_split_to_limits); the I/O completes when the last one does;
//  - plug: I/Os submitted in one batch (between two flushes; the simulator
//    flushes at each Backend::submit(), like blk_finish_plug at the end of
//    io_submit) merge when one continues the previous (blk_attempt_plug_merge);
//  - tags: at most queue_depth requests are at the device at once; the rest
//    wait in the scheduler queue, where an arriving I/O that continues (or
//    precedes) a waiting request of the same direction merges into it, up to
//    max_sectors_kb (back and front merges);
//  - nr_requests: the scheduler queue holds at most that many requests;
//    beyond it, submitters wait in arrival order (the kernel blocks them in
//    blk_mq_get_tag) and their I/O can no longer merge;
//  - dispatch order: "none" in arrival order; "mq-deadline" in ascending
//    sector order, one sweep after another (its read/write expiry, which
//    only matters under starvation, is not modelled).
//
// As a DeviceModel (the io_uring path, one I/O at a time and no later
// revision) it splits and holds requests for tags in arrival order; plug
// and scheduler merges need the event path (the simulator).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "io/device_model.hpp"
#include "io/device_profile.hpp"
#include "io/event_device.hpp"

namespace rs::io {

struct BlockLimits {
  uint32_t max_bytes = 1280 * 1024;
  uint32_t queue_depth = 32;
  uint32_t nr_requests = 32;
  Scheduler scheduler = Scheduler::None;
  static BlockLimits of(const DeviceProfile& p);
};

class BlockLayer final : public DeviceModel, public EventDevice {
 public:
  BlockLayer(std::unique_ptr<DeviceModel> inner, const BlockLimits& limits);

  uint64_t schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) override;
  void complete(uint64_t offset, uint32_t length) override { inner_->complete(offset, length); }
  bool rotational() const override { return inner_->rotational(); }
  uint32_t io_opt() const override { return inner_->io_opt(); }
  uint32_t logical_block_size() const override { return inner_->logical_block_size(); }

  void arrive(uint64_t now_ns, uint64_t token, bool write, uint64_t offset, uint32_t length,
              EventSink& sink) override;
  void flush(uint64_t now_ns, EventSink& sink) override;
  void delivered(uint64_t now_ns, uint64_t token, EventSink& sink) override;
  void wake(uint64_t now_ns, EventSink& sink) override;

  DeviceModel& inner() { return *inner_; }
  const BlockLimits& limits() const { return limits_; }

  // What the device has been sent so far (event path): requests and the
  // I/Os that arrived, so tests can see splits and merges.
  uint64_t requests_dispatched() const { return dispatched_; }
  uint64_t ios_arrived() const { return arrived_; }

 private:
  static constexpr uint32_t kNone = ~0u;
  struct Parent {  // one I/O from the submitter
    uint64_t token;
    uint32_t pieces_left;
    uint64_t done_ns;
  };
  struct Bio {  // a piece of an I/O, at most max_bytes
    uint32_t parent;
    uint32_t next;
  };
  struct Request {  // what the device sees: one or more adjacent bios
    uint64_t offset;
    uint32_t length;
    bool write;
    uint32_t first_bio, last_bio;
  };
  struct Retire {  // a request the device completes at `at`
    uint64_t at;
    uint32_t request;
    bool operator>(const Retire& o) const { return at > o.at; }
  };
  // The inner device reports to the block layer, which reports to the backend.
  struct InnerSink final : EventSink {
    BlockLayer* self = nullptr;
    void complete_at(uint64_t token, uint64_t at_ns) override { self->request_done(uint32_t(token), at_ns); }
    void wake_at(uint64_t at_ns) override { self->outer_->wake_at(at_ns); }
  };

  uint32_t new_request(uint32_t bio, bool write, uint64_t offset, uint32_t length);
  bool try_merge(uint32_t req, uint32_t bio, bool write, uint64_t offset, uint32_t length);
  void enqueue(uint64_t now, uint32_t req);
  void dispatch(uint64_t now, uint32_t req);
  void dispatch_waiting(uint64_t now);
  void request_done(uint32_t req, uint64_t at);
  void retire(uint64_t now);
  bool waiting() const { return !sched_.empty() || overflow_head_ < overflow_.size(); }

  std::unique_ptr<DeviceModel> inner_;
  EventDevice* inner_events_;  // the inner model's event interface, or null (then schedule())
  BlockLimits limits_;

  // Event path (single-threaded, like the simulator).
  EventSink* outer_ = nullptr;
  InnerSink inner_sink_;
  std::vector<Parent> parents_;
  std::vector<Bio> bios_;
  std::vector<Request> requests_;
  std::vector<uint32_t> free_parents_, free_bios_, free_requests_;
  std::vector<uint32_t> plug_;      // requests of the current batch
  std::vector<uint32_t> sched_;     // requests waiting for a tag (merge candidates)
  std::vector<uint32_t> overflow_;  // submitters waiting for room in sched_
  size_t overflow_head_ = 0;
  std::vector<Retire> retire_;      // min-heap
  uint32_t in_flight_ = 0;          // requests at the device (tags held)
  uint64_t last_dispatch_end_ = 0;  // mq-deadline's sweep position
  uint64_t dispatched_ = 0, arrived_ = 0;

  // DeviceModel path.
  std::mutex mu_;
  std::vector<uint64_t> tag_free_;  // min-heap: when each held tag frees
};

}  // namespace rs::io
