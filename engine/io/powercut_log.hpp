// The power-cut model: a WriteObserver that records every member write
// (with its bytes) and every flush in one order, and replays the record up
// to any cut point as the members' media could hold it had power been lost
// there. Tests use it to find what a crash can leave behind that a process
// kill cannot (with io_uring a killed process's writes still complete).
//
// The rule is what a disk with a volatile write cache promises, the model md
// is written against. At a cut before event k, a write is on the media for
// certain when it completed before k and either it was a dsync write
// (RWF_DSYNC / FUA) or a flush of its device that started after it completed
// has completed before k. Every other write issued before k may have reached
// the media whole, not at all, or torn (each 512-byte sector on its own new
// or old): replay() picks one of the three per write at random. A write
// issued at or after k never did. Overlapping writes land in the order they
// were issued (the engine never has two in flight over the same bytes).
//
// Recording is thread-safe (one mutex orders the events); the accessors
// and replay() are for after the recording, when no thread calls in.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "io/write_observer.hpp"

namespace rs::io {

class PowerCutLog final : public WriteObserver {
 public:
  static constexpr size_t kNone = ~size_t{0};
  static constexpr uint32_t kSector = 512;  // a torn write keeps or loses whole sectors

  enum class Kind : uint8_t { write_issued, write_completed, flush_started, flush_completed, mark };
  struct Event {
    Kind kind;
    uint32_t ref;  // index into writes(), flushes() or marks()
  };
  struct Write {
    int device = -1;
    uint64_t offset = 0;
    std::vector<uint8_t> data;
    bool dsync = false;
    size_t issued = kNone, completed = kNone;  // event indices
    int result = 0;
  };
  struct Flush {
    int device = -1;
    size_t started = kNone, completed = kNone;
    bool ok = false;
  };
  struct Mark {
    uint64_t tag = 0;
    size_t at = kNone;
  };

  // ---- WriteObserver ----
  uint64_t write_issued(const std::string& device, uint64_t offset, const void* data, size_t length,
                        bool dsync) override;
  void write_completed(uint64_t id, int result) override;
  uint64_t flush_started(const std::string& device) override;
  void flush_completed(uint64_t id, bool ok) override;

  // A point of the caller's own in the same order (an array flush that
  // returned, an array write about to start): returns its event index.
  size_t mark(uint64_t tag);

  // ---- after recording ----
  size_t size() const { return events_.size(); }
  const std::vector<Event>& events() const { return events_; }
  const std::vector<Write>& writes() const { return writes_; }
  const std::vector<Flush>& flushes() const { return flushes_; }
  const std::vector<Mark>& marks() const { return marks_; }
  const std::vector<std::string>& devices() const { return devices_; }
  // -1 when the device was never written or flushed.
  int device_index(const std::string& path) const;

  // Whether write `w` is certainly on the media at a cut before event `cut`.
  bool durable(const Write& w, size_t cut) const;

  struct CutSummary {
    size_t durable = 0, dropped = 0, whole = 0, torn = 0;  // writes issued before the cut, by fate
  };
  // The bytes that reach device `device` at `offset`, in landing order.
  using LandFn = std::function<void(int device, uint64_t offset, const uint8_t* data, size_t length)>;
  // Replays a cut before event `cut`: calls `land` for every piece that
  // reaches the media, in issue order; `rng` picks the fate of each write
  // that is not durable.
  CutSummary replay(size_t cut, std::mt19937_64& rng, const LandFn& land) const;

 private:
  int device_locked(const std::string& path);
  size_t push_locked(Kind kind, size_t ref);

  mutable std::mutex mutex_;
  std::vector<Event> events_;
  std::vector<Write> writes_;
  std::vector<Flush> flushes_;
  std::vector<Mark> marks_;
  std::vector<std::string> devices_;
};

}  // namespace rs::io
