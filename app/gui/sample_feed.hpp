// Samples handed from the sampler's thread to the GUI thread: the sampler's
// listener pushes a copy, the GUI's timer drains them all at once. The lock
// is held for a vector push or swap only.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "telemetry/sample.hpp"

namespace rs::gui {

class SampleFeed {
 public:
  void push(const telemetry::Sample& s) {
    auto copy = std::make_shared<const telemetry::Sample>(s);
    std::lock_guard lock(mutex_);
    inbox_.push_back(std::move(copy));
  }
  std::vector<std::shared_ptr<const telemetry::Sample>> drain() {
    std::vector<std::shared_ptr<const telemetry::Sample>> out;
    std::lock_guard lock(mutex_);
    out.swap(inbox_);
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<const telemetry::Sample>> inbox_;
};

}  // namespace rs::gui
