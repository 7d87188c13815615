// Shared helpers for the engine-level RAID1/RAID10 array tests: temp dirs of
// sparse image files, the geometry table every test runs over, a context and
// port on the test's thread with a synchronous driver for array I/O, and a
// Backend decorator that injects -EIO.
#pragma once
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/superblock_edit.hpp"
#include "../../common/temp_dir.hpp"
#include "io/backend.hpp"
#include "io/context.hpp"
#include "io/member_device.hpp"
#include "layout/layout_names.hpp"
#include "levels/levels.hpp"
#include "mirror/copy_map.hpp"
#include "ondisk/superblock.hpp"
#include "raid/array.hpp"
#include "raid/array_port.hpp"
#include "raid/sync_io.hpp"

namespace rs::raid::test {

using rs::test::edit_superblock;  // tests/common/superblock_edit.hpp: a Status to require_ok

inline constexpr uint64_t kMemberBytes = 8ull << 20;  // 1 MiB metadata + 7 MiB data: small, still many chunks
inline constexpr uint32_t kChunkBytes = 64 * 1024;    // small chunks so I/Os cross chunk boundaries
inline constexpr uint32_t kBitmapChunk = 64 * 1024;   // write-intent bitmap chunks of the bitmap tests
inline constexpr uint64_t kBitmapAt = 8192;  // where create puts the bitmap: superblock at 4 KiB + 8 sectors

// A fresh directory under /tmp, removed with everything in it.
struct TempDir : rs::test::TempDir {
  TempDir() : rs::test::TempDir("rs-raidtest") {}
};

struct Config {
  const char* name;
  int level;
  int disks;
  const char* layout;  // raid10: "n2", "f2", "o2"; raid1: ""
};

// Every geometry the array tests run over.
inline std::vector<Config> all_configs() {
  return {{"raid1 x2", 1, 2, ""},        {"raid1 x3", 1, 3, ""},        {"raid10 n2 x4", 10, 4, "n2"},
          {"raid10 f2 x4", 10, 4, "f2"}, {"raid10 o2 x4", 10, 4, "o2"}, {"raid10 n2 x3", 10, 3, "n2"}};
}

inline std::vector<std::string> member_paths(const TempDir& dir, int n, const std::string& prefix = "m") {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(dir.file(prefix + std::to_string(i) + ".img"));
  return v;
}

// Fails the test with the error's message when `s` is not ok.
inline void require_ok(const Status& s) {
  INFO((s ? std::string() : s.error().message));
  REQUIRE(s.ok());
}

inline void set_policy(Array& arr, const std::string& name) {
  require_ok(arr.tunables().set("read_policy", name));
}

// The devices of the current member table (null where missing), for a
// backend made by hand.
inline std::vector<io::MemberDevice*> devices(const Array& arr) {
  std::vector<io::MemberDevice*> v;
  for (const auto& m : arr.table()->members) v.push_back(m.dev.get());
  return v;
}

// A member's state in the current member table.
inline MemberState state(const Array& arr, int slot) {
  const Member& m = (*arr.table())[slot];
  return m.present() ? m.state : MemberState::missing;
}

// Where the copies of an array sector live (md's map for the array's shape).
inline std::vector<layout::DevAddress> copies_of(const Array& arr, uint64_t array_sector) {
  auto map = mirror::CopyMap::make(arr.shape());
  REQUIRE(map.ok());
  std::vector<layout::DevAddress> v(size_t(map->copies()));
  v.resize(size_t(map->map(array_sector, v.data())));
  return v;
}

inline uint64_t sectors_to_boundary(const Array& arr, uint64_t array_sector) {
  auto map = mirror::CopyMap::make(arr.shape());
  REQUIRE(map.ok());
  return map->sectors_to_boundary(array_sector);
}

// Runs check (or repair) over the whole array as a task and returns md's
// mismatch count; fails the test if the check itself fails.
inline uint64_t check_ok(Array& arr, bool repair) {
  auto task = arr.start_check(repair);
  require_ok(task ? Status{} : Status(task.error()));
  require_ok((*task)->wait());
  return arr.mismatch_cnt();
}

// Adds (or resumes) `path` and waits for the rebuild.
inline Status add_member(Array& arr, const std::string& path, AddOptions opt = {}) {
  auto task = arr.start_add(path, opt);
  if (!task) return task.error();
  return (*task)->wait();
}

inline std::unique_ptr<Array> create_array(const Config& c, const std::vector<std::string>& paths,
                                           uint64_t member_bytes = kMemberBytes) {
  CreateOptions o;
  o.level = c.level;
  o.raid_disks = c.disks;
  if (levels::builtin().find(c.level)->chunked) o.chunk_bytes = kChunkBytes;
  o.create_files_bytes = member_bytes;
  if (c.level == 10) {
    auto layout = layout::parse_raid10_layout(c.layout, c.disks);
    REQUIRE(layout.ok());
    o.layout = *layout;
  }
  auto arr = Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

// An array of new image files with a write-intent bitmap (raid5: `layout`
// is mdadm's name, "" for left-symmetric).
inline std::unique_ptr<Array> create_with_bitmap(const Config& c, const std::vector<std::string>& paths,
                                                 uint64_t member_bytes = 16ull << 20,
                                                 uint32_t chunk = kBitmapChunk) {
  CreateOptions o;
  o.level = c.level;
  o.raid_disks = c.disks;
  if (levels::builtin().find(c.level)->chunked) o.chunk_bytes = kChunkBytes;
  o.create_files_bytes = member_bytes;
  o.bitmap = BitmapMode::internal;
  o.bitmap_chunk_bytes = chunk;
  if (c.level == 10) o.layout = *layout::parse_raid10_layout(c.layout, c.disks);
  if (c.level == 5 && *c.layout) o.layout = uint32_t(*layout::parse_raid5_layout(c.layout));
  auto arr = Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

inline std::unique_ptr<Array> assemble(const std::vector<std::string>& paths, AssembleOptions opt = {}) {
  auto arr = Array::assemble(levels::builtin(), paths, opt);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

// Blocking reads/writes of any offset and length.
inline Status array_write(Array& arr, uint64_t offset, const void* buf, size_t len) {
  SyncIo sio(arr);
  return sio.write(offset, buf, len);
}
inline Status array_read(Array& arr, uint64_t offset, void* buf, size_t len) {
  SyncIo sio(arr);
  return sio.read(offset, buf, len);
}

inline std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t x = rng();
    std::memcpy(v.data() + i, &x, std::min<size_t>(8, n - i));
  }
  return v;
}

// Where two byte buffers first differ, -1 when equal (-2: sizes differ).
// Compared this way so a failure prints an offset, not megabytes of bytes.
inline long first_diff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return -2;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return long(i);
  return -1;
}

inline void fill_random(std::mt19937_64& rng, uint8_t* p, size_t n) {
  auto v = random_bytes(rng, n);
  std::memcpy(p, v.data(), n);
}

// Reads an image file behind the array's back (buffered; coherent with the
// array's O_DIRECT writes).
inline std::vector<uint8_t> read_file_at(const std::string& path, uint64_t offset, size_t len) {
  std::vector<uint8_t> v(len);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  ssize_t n = ::pread(fd, v.data(), len, off_t(offset));
  ::close(fd);
  REQUIRE(n == ssize_t(len));
  return v;
}

inline void write_file_at(const std::string& path, uint64_t offset, const void* buf, size_t len) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  ssize_t n = ::pwrite(fd, buf, len, off_t(offset));
  // The array reads with O_DIRECT: get the bytes to the file before it looks.
  ::fsync(fd);
  ::close(fd);
  REQUIRE(n == ssize_t(len));
}

// The members' counters summed over the array's members.
inline telemetry::MemberCountersSnapshot member_totals(const Array& arr) {
  telemetry::MemberCountersSnapshot t;
  for (int i = 0; i < arr.raid_disks(); ++i) {
    auto s = arr.runtime(i).counters.snapshot();
    t.reads += s.reads;
    t.writes += s.writes;
    t.read_bytes += s.read_bytes;
    t.write_bytes += s.write_bytes;
    t.errors += s.errors;
    t.nr_pending += s.nr_pending;
    t.pending_time_ns += s.pending_time_ns;
  }
  return t;
}

// Number of chunk segments an I/O is split into (RAID1: one).
inline uint64_t segments_of(const Array& arr, uint64_t offset, uint32_t length) {
  uint64_t sector = offset / kSectorBytes, left = length / kSectorBytes, n = 0;
  while (left > 0) {
    uint64_t s = std::min<uint64_t>(left, sectors_to_boundary(arr, sector));
    sector += s;
    left -= s;
    ++n;
  }
  return n;
}

// ---- driving array I/O on the test's thread ----

// An I/O context on the calling thread over `backend` (default: the array's
// own) and a port on it, as a job thread has.
class TestPort {
 public:
  explicit TestPort(Array& arr, std::unique_ptr<io::Backend> backend = nullptr)
      : ctx_(backend ? std::move(backend) : arr.make_backend(8), "test"), port_(arr, ctx_) {}
  ArrayPort& port() { return port_; }
  io::IoContext& context() { return ctx_; }
  io::Backend& backend() { return ctx_.backend(); }
  // One turn of the context; throws when nothing can ever complete (an I/O
  // lost): nothing in flight, nothing posted, for 10 s.
  void turn() {
    const uint64_t deadline = backend().now_ns() + 10'000'000'000ull;
    while (ctx_.run_once(1, deadline) == 0)
      if (backend().now_ns() >= deadline)
        throw std::runtime_error("array I/O lost: nothing completed in 10 s");
  }

 private:
  io::IoContext ctx_;
  ArrayPort port_;
};

struct Completion {
  bool done = false;
  int result = 0;
};

inline void completion_done(ArrayIo& io, int result) {
  auto* c = static_cast<Completion*>(io.owner);
  c->done = true;
  c->result = result;
}

// Submits one prepared ArrayIo and runs the context until it completes.
inline int run_io(TestPort& tp, ArrayIo& io) {
  Completion c;
  io.done = completion_done;
  io.owner = &c;
  tp.port().submit(io);
  while (!c.done) tp.turn();
  return c.result;
}

// One array I/O with its own aligned buffer.
struct OwnedIo {
  ArrayIo io;
  io::AlignedBuffer buf;
  OwnedIo(TestPort& tp, uint32_t max_length) : buf(rs::test::must(io::AlignedBuffer::allocate(max_length))) {
    tp.port().prepare(io, max_length);
  }
};

inline int submit_rw(TestPort& tp, bool write, uint64_t offset, void* data, uint32_t length,
                     uint32_t job_id = 0) {
  OwnedIo o(tp, length);
  if (write) std::memcpy(o.buf.data(), data, length);
  o.io.write = write;
  o.io.offset = offset;
  o.io.length = length;
  o.io.buffer = o.buf.data();
  o.io.job_id = job_id;
  int r = run_io(tp, o.io);
  if (!write && r >= 0) std::memcpy(data, o.buf.data(), length);
  return r;
}

// Array I/Os run with up to `depth` in flight on one port, as a job does.
struct Request {
  bool write = false;
  uint64_t offset = 0;
  uint32_t length = 0;
  uint8_t* data = nullptr;  // the bytes to write, or where a read lands
  uint32_t job_id = 0;
};

// Usable from worker threads: it reports trouble by throwing, never through
// Catch2's assertion macros (which are not thread-safe).
class Pipeline {
 public:
  Pipeline(TestPort& tp, unsigned depth, uint32_t max_length) : tp_(tp) {
    for (unsigned i = 0; i < depth; ++i) {
      slots_.push_back(std::make_unique<Entry>(tp, max_length));
      slots_.back()->owner = this;
      free_.push_back(slots_.back().get());
    }
  }
  // Runs every request; returns each one's result (length or -errno).
  std::vector<int> run(const std::vector<Request>& reqs) {
    std::vector<int> results(reqs.size(), 1);
    reqs_ = &reqs;
    results_ = &results;
    size_t next = 0;
    while (next < reqs.size() || free_.size() < slots_.size()) {
      while (next < reqs.size() && !free_.empty()) {
        Entry* e = free_.back();
        free_.pop_back();
        const Request& r = reqs[next];
        if (r.length > e->o.buf.size())
          throw std::runtime_error("request longer than the pipeline's buffers");
        e->req = next++;
        if (r.write) std::memcpy(e->o.buf.data(), r.data, r.length);
        e->o.io.write = r.write;
        e->o.io.offset = r.offset;
        e->o.io.length = r.length;
        e->o.io.buffer = e->o.buf.data();
        e->o.io.job_id = r.job_id;
        e->o.io.done = &Pipeline::done;
        e->o.io.owner = e;
        tp_.port().submit(e->o.io);
      }
      tp_.backend().submit();
      tp_.turn();
    }
    return results;
  }

 private:
  struct Entry {
    Entry(TestPort& tp, uint32_t max_length) : o(tp, max_length) {}
    OwnedIo o;
    size_t req = 0;
    Pipeline* owner = nullptr;
  };
  static void done(ArrayIo& io, int result) {
    auto* e = static_cast<Entry*>(io.owner);
    Pipeline& p = *e->owner;
    const Request& r = (*p.reqs_)[e->req];
    (*p.results_)[e->req] = result;
    if (!r.write && result >= 0) std::memcpy(r.data, e->o.buf.data(), r.length);
    p.free_.push_back(e);
  }

  TestPort& tp_;
  std::vector<std::unique_ptr<Entry>> slots_;
  std::vector<Entry*> free_;
  const std::vector<Request>* reqs_ = nullptr;
  std::vector<int>* results_ = nullptr;
};

// The region check/repair and the error tests fill with random data.
inline constexpr uint64_t kRegionBytes = 2ull << 20;

// Writes random data over [0, kRegionBytes) in io_bytes pieces, 8 in flight,
// through a plain backend; returns what was written.
inline std::vector<uint8_t> fill_region(Array& arr, std::mt19937_64& rng, uint32_t io_bytes) {
  auto model = random_bytes(rng, kRegionBytes);
  TestPort tp(arr);
  Pipeline p(tp, 8, io_bytes);
  std::vector<Request> reqs;
  for (uint64_t off = 0; off < kRegionBytes; off += io_bytes)
    reqs.push_back({true, off, io_bytes, model.data() + off, 0});
  for (int r : p.run(reqs)) REQUIRE(r == int(io_bytes));
  return model;
}

// ---- error injection ----

// Wraps a real backend and fails chosen members' I/O with -EIO instead of
// forwarding it. The failure is delivered at the next reap, never inside
// queue(), as real backends do.
class FailingBackend final : public io::Backend {
 public:
  explicit FailingBackend(std::unique_ptr<io::Backend> inner) : inner_(std::move(inner)) {}

  void fail_reads(int member) { set(member, &reads_); }
  void fail_writes(int member) { set(member, &writes_); }
  void stop_failing() { reads_ = writes_ = 0; }
  unsigned injected() const { return injected_; }

  void queue(io::MemberIo& io) override {
    const uint64_t mask = io.write ? writes_ : reads_;
    if (io.member >= 0 && (mask & (uint64_t{1} << io.member))) {
      failed_.push_back(&io);
      ++injected_;
      return;
    }
    inner_->queue(io);
  }
  void submit() override { inner_->submit(); }
  void queue_timer(io::MemberIo& io, uint64_t delay_ns) override { inner_->queue_timer(io, delay_ns); }
  unsigned reap(unsigned min_complete) override { return reap_until(min_complete, io::kNoDeadline); }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override {
    unsigned done = deliver_failed() + inner_->reap_until(0, deadline_ns);
    while (done < min_complete) {
      // Callbacks (read retries) may queue more I/O here, failing or not.
      if (!failed_.empty()) {
        done += deliver_failed();
        continue;
      }
      if (inner_->in_flight() == 0) break;
      done += inner_->reap_until(1, deadline_ns);
      if (inner_->now_ns() >= deadline_ns) break;
    }
    return done;
  }
  bool arm_wakeup(int event_fd) override { return inner_->arm_wakeup(event_fd); }
  void replace_member(int index, io::MemberDevice* dev) override { inner_->replace_member(index, dev); }
  uint64_t now_ns() override { return inner_->now_ns(); }
  uint64_t batch_now_ns() override { return inner_->batch_now_ns(); }
  unsigned in_flight() const override { return inner_->in_flight() + unsigned(failed_.size()); }
  std::string describe() const override { return "failing(" + inner_->describe() + ")"; }

 private:
  static void set(int member, uint64_t* mask) { *mask |= uint64_t{1} << member; }
  unsigned deliver_failed() {
    auto batch = std::move(failed_);
    failed_.clear();
    for (io::MemberIo* io : batch) io->done(*io, -EIO);
    return unsigned(batch.size());
  }

  std::unique_ptr<io::Backend> inner_;
  std::vector<io::MemberIo*> failed_;
  uint64_t reads_ = 0, writes_ = 0;
  unsigned injected_ = 0;
};

}  // namespace rs::raid::test
