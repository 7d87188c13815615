#include "raid/metadata.hpp"

namespace rs::raid {

MetadataWriter::MetadataWriter(std::function<void()> sync) : sync_(std::move(sync)) {
  thread_ = std::thread([this] { run(); });
}

MetadataWriter::~MetadataWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t MetadataWriter::request() {
  std::lock_guard lock(mutex_);
  const uint64_t e = ++requested_;
  cv_.notify_all();
  return e;
}

void MetadataWriter::when_durable(uint64_t e, std::function<void()> fn) {
  {
    std::lock_guard lock(mutex_);
    if (durable_ < e) {
      waiters_.emplace_back(e, std::move(fn));
      return;
    }
  }
  fn();
}

void MetadataWriter::wait(uint64_t e) {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return durable_ >= e; });
}

void MetadataWriter::wait_all() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return durable_ >= requested_; });
}

uint64_t MetadataWriter::durable() const {
  std::lock_guard lock(mutex_);
  return durable_;
}

void MetadataWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || requested_ > durable_; });
    if (requested_ == durable_) return;  // stopping, nothing left to write
    // Everything requested so far happened before this sync composes.
    const uint64_t target = requested_;
    lock.unlock();
    sync_();
    lock.lock();
    durable_ = target;
    std::vector<std::function<void()>> ready;
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->first <= durable_) {
        ready.push_back(std::move(it->second));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    cv_.notify_all();
    lock.unlock();
    for (auto& fn : ready) fn();
    lock.lock();
  }
}

}  // namespace rs::raid
