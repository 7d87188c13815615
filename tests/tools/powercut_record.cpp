// Recording a power-cut trial's workload: the array is created, its members
// copied as the starting point, then assembled three times with every member
// write and flush logged. Each time: batches of up to 8 non-overlapping array
// writes in flight together (4 KiB to a full RAID5 stripe), an array flush
// after about half the batches, on bitmap shapes sometimes a pause long
// enough for the bitmap daemon to clear chunks, and a clean stop.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../common/result_helpers.hpp"
#include "io/context.hpp"
#include "layout/layout_names.hpp"
#include "levels/levels.hpp"
#include "powercut_trial.hpp"
#include "raid/array.hpp"
#include "raid/array_port.hpp"

namespace rs::powercut {
namespace {

constexpr uint64_t kFlushTag = ~uint64_t{0};
constexpr int kCycles = 3, kBatches = 5, kMaxInFlight = 8;
constexpr uint32_t kMaxWrite = 256 * 1024;

// Array writes on the calling thread: an I/O context and a port, up to
// kMaxInFlight writes in flight.
class BatchWriter {
 public:
  explicit BatchWriter(raid::Array& arr)
      : ctx_(arr.make_backend(kMaxInFlight), "powercut"), port_(arr, ctx_) {
    for (auto& s : slots_) {
      s.buf = rs::test::must(io::AlignedBuffer::allocate(kMaxWrite));
      port_.prepare(s.io, kMaxWrite);
      s.io.buffer = s.buf.data();
      s.io.done = &BatchWriter::done;
      s.io.owner = this;
    }
  }
  uint8_t* buffer(size_t i) { return slots_[i].buf.data(); }
  // Writes slot i's buffer to writes[i] for every i, all at once.
  Status run(const std::vector<ArrayWrite>& writes) {
    busy_ = 0;
    error_ = 0;
    for (size_t i = 0; i < writes.size(); ++i) {
      raid::ArrayIo& io = slots_[i].io;
      io.write = true;
      io.offset = writes[i].offset;
      io.length = writes[i].length;
      ++busy_;
      port_.submit(io);
    }
    ctx_.backend().submit();
    while (busy_ > 0) ctx_.run_once(1);
    if (error_)
      return make_error(Errc::io_error, std::string("array write failed: ") + std::strerror(-error_));
    return {};
  }

 private:
  struct Slot {
    raid::ArrayIo io;
    io::AlignedBuffer buf;
  };
  static void done(raid::ArrayIo& io, int result) {
    auto* self = static_cast<BatchWriter*>(io.owner);
    --self->busy_;
    if (result < 0 && !self->error_) self->error_ = result;
  }
  io::IoContext ctx_;
  raid::ArrayPort port_;
  Slot slots_[kMaxInFlight];
  unsigned busy_ = 0;
  int error_ = 0;
};

Status write_junk(const std::string& path, std::mt19937_64& rng) {
  std::vector<uint8_t> bytes(kMemberBytes);
  for (size_t i = 0; i < bytes.size(); i += 8) {
    const uint64_t x = rng();
    std::memcpy(bytes.data() + i, &x, 8);
  }
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return out ? Status{} : make_error(Errc::io_error, path + ": cannot write");
}

Status create_array(const Shape& shape, bool junk, const std::vector<std::string>& paths,
                    std::mt19937_64& rng) {
  raid::CreateOptions o;
  o.level = shape.level;
  o.raid_disks = shape.disks;
  if (levels::builtin().find(shape.level)->chunked) o.chunk_bytes = kChunk;
  o.force = true;
  if (shape.level == 10) o.layout = *layout::parse_raid10_layout(shape.layout, shape.disks);
  if (shape.level == 5) o.layout = uint32_t(*layout::parse_raid5_layout(shape.layout));
  if (shape.level == 6) o.layout = uint32_t(*layout::parse_raid6_layout(shape.layout));
  o.bitmap = shape.bitmap ? raid::BitmapMode::internal : raid::BitmapMode::none;
  if (shape.bitmap) o.bitmap_chunk_bytes = kBitmapChunk;
  if (junk) {
    for (const auto& p : paths)
      if (Status s = write_junk(p, rng); !s) return s;
  } else {
    o.create_files_bytes = kMemberBytes;
  }
  auto arr = raid::Array::create(levels::builtin(), o, paths);
  if (!arr) return arr.error();
  // On junk the initial resync has just begun: close() records where it
  // got, and it resumes while the workload runs.
  return (*arr)->close();
}

// Up to kMaxInFlight non-overlapping writes in the region, 4 KiB aligned.
std::vector<ArrayWrite> pick_batch(const Shape& shape, std::mt19937_64& rng) {
  const int parity = shape.level == 5 ? 1 : shape.level == 6 ? 2 : 0;
  const uint64_t row = parity ? uint64_t(kChunk) * uint64_t(shape.disks - parity) : 0;
  std::vector<ArrayWrite> batch;
  const size_t want = 1 + rng() % kMaxInFlight;
  for (int tries = 0; batch.size() < want && tries < 64; ++tries) {
    ArrayWrite w;
    const unsigned kind = unsigned(rng() % 20);
    if (kind < 11) {
      w.length = kBlock;
    } else if (kind < 18) {
      w.length = kBlock * uint32_t(2 + rng() % 15);
    } else {
      w.length = uint32_t(row ? row : 2 * kChunk);  // a full RAID5/6 stripe, or two chunks
    }
    const uint64_t align = kind >= 18 && row ? row : kBlock;
    w.offset = (rng() % ((kRegionBytes - w.length) / align + 1)) * align;
    bool overlaps = false;
    for (const auto& b : batch) overlaps |= w.offset < b.offset + b.length && b.offset < w.offset + w.length;
    if (!overlaps) batch.push_back(w);
  }
  return batch;
}

void mark_flushed(Recording& rec, size_t at) {
  for (auto& w : rec.writes)
    if (w.flushed == io::PowerCutLog::kNone) w.flushed = at;
}

// One assemble-to-close cycle of the workload.
Status run_cycle(Recording& rec, const std::vector<std::string>& paths, std::mt19937_64& rng,
                 bool daemon_pause) {
  raid::AssembleOptions ao;
  ao.observer = rec.log;
  auto arr = raid::Array::assemble(levels::builtin(), paths, ao);
  if (!arr) return arr.error();
  if (daemon_pause)
    if (Status s = (*arr)->tunables().set("daemon_sleep", "1"); !s) return s;
  {
    BatchWriter writer(**arr);
    for (int b = 0; b < kBatches; ++b) {
      std::vector<ArrayWrite> batch = pick_batch(rec.shape, rng);
      for (size_t i = 0; i < batch.size(); ++i) {
        ArrayWrite& w = batch[i];
        w.version = rec.writes.size() + 1;
        for (uint32_t s = 0; s < w.length; s += kSector)
          stamp(writer.buffer(i) + s, rec.seed, (w.offset + s) / kSector, w.version);
        w.started = rec.log->mark(w.version);
        rec.writes.push_back(w);
      }
      if (Status s = writer.run(batch); !s) return s;
      if (rng() % 2) {
        if (Status s = (*arr)->flush(); !s) return s;
        mark_flushed(rec, rec.log->mark(kFlushTag));
      }
      // The daemon clears chunks idle for daemon_sleep (1 s): let it.
      if (daemon_pause && b == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1600));
    }
  }
  if (Status s = (*arr)->close(); !s) return s;
  mark_flushed(rec, rec.log->mark(kFlushTag));
  return {};
}

}  // namespace

std::vector<Shape> all_shapes() {
  std::vector<Shape> v;
  for (bool bitmap : {false, true}) {
    const std::string b = bitmap ? ", bitmap" : "";
    v.push_back({"raid1 x2" + b, 1, 2, "", bitmap});
    v.push_back({"raid10 n2 x4" + b, 10, 4, "n2", bitmap});
    v.push_back({"raid10 f2 x4" + b, 10, 4, "f2", bitmap});
    v.push_back({"raid5 x4" + b, 5, 4, "left-symmetric", bitmap});
    v.push_back({"raid6 x5" + b, 6, 5, "left-symmetric", bitmap});
  }
  return v;
}

Result<Recording> record(const Shape& shape, uint64_t seed, const std::string& dir) {
  std::mt19937_64 rng(seed);
  Recording rec;
  rec.shape = shape;
  rec.seed = seed;
  rec.junk = rng() % 3 == 0;
  std::vector<std::string> paths;
  for (int i = 0; i < shape.disks; ++i) {
    paths.push_back(dir + "/m" + std::to_string(i) + ".img");
    rec.base.push_back(dir + "/base" + std::to_string(i) + ".img");
  }
  if (Status s = create_array(shape, rec.junk, paths, rng); !s) return s.error();
  std::error_code ec;
  for (int i = 0; i < shape.disks; ++i)
    if (!std::filesystem::copy_file(paths[size_t(i)], rec.base[size_t(i)],
                                    std::filesystem::copy_options::overwrite_existing, ec))
      return make_error(Errc::io_error, rec.base[size_t(i)] + ": " + ec.message());
  rec.log = std::make_shared<io::PowerCutLog>();
  const int pause_cycle = shape.bitmap && rng() % 2 ? int(rng() % kCycles) : -1;
  for (int c = 0; c < kCycles; ++c)
    if (Status s = run_cycle(rec, paths, rng, c == pause_cycle); !s) return s.error();
  return rec;
}

}  // namespace rs::powercut
