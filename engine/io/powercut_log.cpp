#include "io/powercut_log.hpp"

#include <algorithm>
#include <cstring>

namespace rs::io {

int PowerCutLog::device_locked(const std::string& path) {
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i] == path) return int(i);
  devices_.push_back(path);
  return int(devices_.size() - 1);
}

size_t PowerCutLog::push_locked(Kind kind, size_t ref) {
  events_.push_back({kind, uint32_t(ref)});
  return events_.size() - 1;
}

uint64_t PowerCutLog::write_issued(const std::string& device, uint64_t offset, const void* data,
                                   size_t length, bool dsync) {
  Write w;
  w.offset = offset;
  w.data.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + length);
  w.dsync = dsync;
  std::lock_guard lock(mutex_);
  w.device = device_locked(device);
  w.issued = push_locked(Kind::write_issued, writes_.size());
  writes_.push_back(std::move(w));
  return writes_.size() - 1;
}

void PowerCutLog::write_completed(uint64_t id, int result) {
  std::lock_guard lock(mutex_);
  Write& w = writes_[size_t(id)];
  w.result = result;
  w.completed = push_locked(Kind::write_completed, size_t(id));
}

uint64_t PowerCutLog::flush_started(const std::string& device) {
  std::lock_guard lock(mutex_);
  Flush f;
  f.device = device_locked(device);
  f.started = push_locked(Kind::flush_started, flushes_.size());
  flushes_.push_back(f);
  return flushes_.size() - 1;
}

void PowerCutLog::flush_completed(uint64_t id, bool ok) {
  std::lock_guard lock(mutex_);
  Flush& f = flushes_[size_t(id)];
  f.ok = ok;
  f.completed = push_locked(Kind::flush_completed, size_t(id));
}

size_t PowerCutLog::mark(uint64_t tag) {
  std::lock_guard lock(mutex_);
  const size_t at = push_locked(Kind::mark, marks_.size());
  marks_.push_back({tag, at});
  return at;
}

int PowerCutLog::device_index(const std::string& path) const {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i] == path) return int(i);
  return -1;
}

bool PowerCutLog::durable(const Write& w, size_t cut) const {
  if (w.completed >= cut || w.result != int(w.data.size())) return false;
  if (w.dsync) return true;
  // A flush of the device that started after the write completed and
  // completed before the cut.
  return std::any_of(flushes_.begin(), flushes_.end(), [&](const Flush& f) {
    return f.device == w.device && f.ok && f.started > w.completed && f.completed < cut;
  });
}

PowerCutLog::CutSummary PowerCutLog::replay(size_t cut, std::mt19937_64& rng, const LandFn& land) const {
  CutSummary sum;
  for (const Write& w : writes_) {
    if (w.issued >= cut) break;  // writes_ is in issue order
    if (durable(w, cut)) {
      ++sum.durable;
      land(w.device, w.offset, w.data.data(), w.data.size());
      continue;
    }
    switch (rng() % 3) {
      case 0:
        ++sum.dropped;
        break;
      case 1:
        ++sum.whole;
        land(w.device, w.offset, w.data.data(), w.data.size());
        break;
      default: {
        ++sum.torn;
        for (size_t s = 0; s < w.data.size(); s += kSector)
          if (rng() & 1)
            land(w.device, w.offset + s, w.data.data() + s, std::min<size_t>(kSector, w.data.size() - s));
        break;
      }
    }
  }
  return sum;
}

}  // namespace rs::io
