// Shared helpers for the engine-level RAID1/RAID10 array tests: temp dirs of
// sparse image files, the geometry table every test runs over, a synchronous
// driver for Array::submit, and a Backend decorator that injects -EIO.
#pragma once
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/backend.hpp"
#include "io/member_device.hpp"
#include "raid/array.hpp"

namespace rs::raid::test {

inline constexpr uint64_t kMemberBytes = 8ull << 20;  // 1 MiB metadata + 7 MiB data: small, still many chunks
inline constexpr uint32_t kChunkBytes = 64 * 1024;    // small chunks so I/Os cross chunk boundaries

// A fresh directory under /tmp, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/rs-raidtest-XXXXXX";
    const char* p = ::mkdtemp(tmpl);
    REQUIRE(p != nullptr);
    path = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
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

// Runs check (or repair) over the whole array and returns md's mismatch
// count; fails the test if the check itself fails.
inline uint64_t check_ok(Array& arr, bool repair) {
  std::string error;
  auto r = arr.check(repair, nullptr, &error);
  INFO(error);
  REQUIRE(r.has_value());
  return *r;
}

// Creates the array on new sparse image files (which need no initial resync).
inline std::unique_ptr<Array> create_array(const Config& c, const std::vector<std::string>& paths,
                                           uint64_t member_bytes = kMemberBytes) {
  CreateOptions o;
  o.level = c.level;
  o.raid_disks = c.disks;
  o.chunk_bytes = kChunkBytes;
  o.create_files_bytes = member_bytes;
  if (c.level == 10) {
    std::string err;
    auto layout = parse_raid10_layout(c.layout, &err);
    REQUIRE(layout.has_value());
    o.layout = *layout;
  }
  std::string error;
  auto arr = Array::create(o, paths, nullptr, &error);
  INFO(error);
  REQUIRE(arr != nullptr);
  return arr;
}

inline std::unique_ptr<Array> assemble(const std::vector<std::string>& paths) {
  std::string error;
  auto arr = Array::assemble(paths, &error);
  INFO(error);
  REQUIRE(arr != nullptr);
  return arr;
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

// Number of chunk segments an I/O is split into (RAID1: one).
inline uint64_t segments_of(const Geometry& g, uint64_t offset, uint32_t length) {
  uint64_t sector = offset / kSectorBytes, left = length / kSectorBytes, n = 0;
  while (left > 0) {
    uint64_t s = std::min<uint64_t>(left, g.sectors_to_boundary(sector));
    sector += s;
    left -= s;
    ++n;
  }
  return n;
}

// ---- driving Array::submit synchronously ----

struct Completion {
  bool done = false;
  int result = 0;
};

inline void completion_done(ArrayIo& io, int result) {
  auto* c = static_cast<Completion*>(io.owner);
  c->done = true;
  c->result = result;
}

// Submits one prepared ArrayIo and reaps until it completes; returns its result.
inline int run_io(Array& arr, io::Backend& backend, ArrayIo& io) {
  Completion c;
  io.done = completion_done;
  io.owner = &c;
  arr.submit(io, backend);
  while (!c.done) {
    // A backend with nothing in flight and the I/O not done would hang us.
    REQUIRE(backend.in_flight() > 0);
    backend.reap(1);
  }
  return c.result;
}

// One array I/O with its own aligned buffer.
struct OwnedIo {
  ArrayIo io;
  io::AlignedBuffer buf;
  OwnedIo(const Array& arr, uint32_t max_length) : buf(max_length) { arr.prepare(io, max_length); }
};

inline int submit_rw(Array& arr, io::Backend& backend, bool write, uint64_t offset, void* data,
                     uint32_t length, uint32_t job_id = 0) {
  OwnedIo o(arr, length);
  if (write) std::memcpy(o.buf.data(), data, length);
  o.io.write = write;
  o.io.offset = offset;
  o.io.length = length;
  o.io.buffer = o.buf.data();
  o.io.job_id = job_id;
  int r = run_io(arr, backend, o.io);
  if (!write && r >= 0) std::memcpy(data, o.buf.data(), length);
  return r;
}

// Array I/Os run with up to `depth` in flight on one backend, as a job does.
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
  Pipeline(Array& arr, io::Backend& backend, unsigned depth, uint32_t max_length)
      : arr_(arr), backend_(backend) {
    for (unsigned i = 0; i < depth; ++i) {
      slots_.push_back(std::make_unique<Entry>(arr, max_length));
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
    unsigned busy = 0;
    while (next < reqs.size() || busy > 0) {
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
        ++busy;
        arr_.submit(e->o.io, backend_);
      }
      if (backend_.in_flight() == 0)
        throw std::runtime_error("array I/O lost: nothing in flight, not completed");
      backend_.reap(1);
      busy = unsigned(slots_.size() - free_.size());
    }
    return results;
  }

 private:
  struct Entry {
    Entry(const Array& arr, uint32_t max_length) : o(arr, max_length) {}
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

  Array& arr_;
  io::Backend& backend_;
  std::vector<std::unique_ptr<Entry>> slots_;
  std::vector<Entry*> free_;
  const std::vector<Request>* reqs_ = nullptr;
  std::vector<int>* results_ = nullptr;
};

// ---- error injection ----

// Wraps a real backend and fails chosen members' I/O with -EIO instead of
// forwarding it. The failure is delivered at the next reap(), never inside
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
  unsigned reap(unsigned min_complete) override {
    unsigned done = deliver_failed() + inner_->reap(0);
    while (done < min_complete) {
      // Callbacks (read retries) may queue more I/O here, failing or not.
      if (!failed_.empty()) {
        done += deliver_failed();
        continue;
      }
      if (inner_->in_flight() == 0) break;
      done += inner_->reap(1);
    }
    return done;
  }
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
