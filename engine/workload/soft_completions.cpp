#include "workload/soft_completions.hpp"

#include <algorithm>

namespace rs::workload {

uint64_t SoftCompletions::first_due(uint64_t deadline_ns) const {
  for (const Item& t : items_) deadline_ns = std::min(deadline_ns, t.due_ns);
  return deadline_ns;
}

unsigned SoftCompletions::release(uint64_t now_ns) {
  unsigned ran = 0;
  for (size_t i = 0; i < items_.size();) {
    if (items_[i].due_ns > now_ns) {
      ++i;
      continue;
    }
    const Item t = items_[i];
    items_.erase(items_.begin() + long(i));
    t.io->done(*t.io, t.result);
    ++ran;
  }
  return ran;
}

}  // namespace rs::workload
