// Completions a queued engine makes without the kernel: a timer
// (Backend::queue_timer, -EAGAIN when due) or an I/O that failed before it
// could be handed over (due at once, with its error). Shared by the engines
// that wait in their own system call (Linux AIO, POSIX AIO), which wait no
// later than first_due() and then release() what is due.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/member_io.hpp"

namespace rs::workload {

class SoftCompletions {
 public:
  void add(uint64_t due_ns, io::MemberIo& io, int result) { items_.push_back({due_ns, &io, result}); }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  // `deadline_ns`, or the first due time before it.
  uint64_t first_due(uint64_t deadline_ns) const;
  // Completes everything due by `now_ns`; returns how many. A callback may
  // add more (they wait for the next call).
  unsigned release(uint64_t now_ns);

 private:
  struct Item {
    uint64_t due_ns;
    io::MemberIo* io;
    int result;
  };
  std::vector<Item> items_;
};

}  // namespace rs::workload
