// One I/O context's handle to an array: array I/O is submitted through it
// and completes on the context's thread.
//
// The port keeps the member table it last saw and brings its backend up to
// date (io_uring's registered files) when the array publishes a new one. An
// I/O holds the table that was current when it was submitted; the port
// counts, per table, the I/Os still holding it, and lets an old table go
// when that count reaches zero, so a replaced device is closed only once no
// I/O can reach it. The counts are the context thread's alone: no atomic
// per I/O.
#pragma once
#include <cstdint>
#include <list>
#include <memory>

#include "io/context.hpp"
#include "raid/array_io.hpp"
#include "raid/member_table.hpp"
#include "telemetry/counter_slots.hpp"
#include "telemetry/live_histogram.hpp"

namespace rs::raid {

class Array;

struct HeldTable {
  TableRef table;
  uint64_t inflight = 0;
};

class ArrayPort {
 public:
  // On the context's thread; the context's backend must have been made by
  // Array::make_backend (or wrap one that was).
  ArrayPort(Array& array, io::IoContext& context);
  // Every I/O submitted through the port must have completed.
  ~ArrayPort();
  ArrayPort(const ArrayPort&) = delete;
  ArrayPort& operator=(const ArrayPort&) = delete;

  // Sizes `io` for requests up to max_length bytes (allocates; once per slot).
  void prepare(ArrayIo& io, uint32_t max_length);
  // Starts `io`; io.done runs on this context's thread (from run_once()).
  void submit(ArrayIo& io);

  Array& array() { return array_; }
  io::IoContext& context() { return context_; }
  io::Backend& backend() { return context_.backend(); }
  unsigned in_flight() const { return in_flight_; }

 private:
  friend class Array;
  // Takes the array's current table if it changed (and updates the backend).
  void refresh();
  void hold(ArrayIo& io);
  void release(ArrayIo& io);

  Array& array_;
  io::IoContext& context_;
  std::list<HeldTable> tables_;  // back(): the current one; older ones while I/O holds them
  std::shared_ptr<telemetry::LiveHistogram> latency_;
  // This context's counts: one slot per member, then the array's.
  telemetry::CounterSlot* counters_ = nullptr;
  uint32_t unit_ = 512;            // Array::io_unit_bytes for tables_.back()
  bool failure_reported_ = false;  // the context's ring failure is an array event already
  uint64_t size_bytes_ = 0;
  unsigned in_flight_ = 0;
};

}  // namespace rs::raid
