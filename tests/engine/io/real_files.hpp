// Helpers for the tests that drive the real backends: a temp file with
// known contents, opening it as a member, an emulated disk with a fixed
// latency, and an io_uring backend (require_uring() first, to skip where
// io_uring is unusable).
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../common/needs_uring.hpp"
#include "../../common/result_helpers.hpp"
#include "io/backend.hpp"
#include "io/device_model.hpp"
#include "io/member_device.hpp"
#include "io/uring_backend.hpp"

namespace rs::io::test {

constexpr uint32_t kBlock = 4096;

// A file of `blocks` 4 KiB blocks; block i holds the byte value fill + i
// throughout. Removed on destruction.
struct TempFile {
  std::string path;
  explicit TempFile(unsigned blocks, unsigned fill = 1) {
    char tmpl[] = "/var/tmp/raidscope-backend.XXXXXX";
    int fd = ::mkstemp(tmpl);
    REQUIRE(fd >= 0);
    path = tmpl;
    std::vector<uint8_t> block(kBlock);
    for (unsigned i = 0; i < blocks; ++i) {
      std::memset(block.data(), int((fill + i) & 0xff), kBlock);
      REQUIRE(::pwrite(fd, block.data(), kBlock, off_t(i) * kBlock) == ssize_t(kBlock));
    }
    ::close(fd);
  }
  ~TempFile() { ::unlink(path.c_str()); }
};

inline std::unique_ptr<MemberDevice> open_file(const TempFile& f) {
  std::string err;
  auto dev = rs::test::or_empty(MemberDevice::open(f.path, OpenMode::ReadOnly), &err);
  INFO(err);
  REQUIRE(dev);
  return dev;
}

// An emulated disk that finishes every I/O `latency_ns` after it was
// scheduled and counts the completions it is told about.
class FixedLatencyModel final : public DeviceModel {
 public:
  explicit FixedLatencyModel(uint64_t latency_ns) : latency_ns_(latency_ns) {}
  uint64_t schedule(uint64_t now_ns, bool, uint64_t, uint32_t) override { return now_ns + latency_ns_; }
  void complete(uint64_t, uint32_t) override { completed.fetch_add(1, std::memory_order_relaxed); }
  bool rotational() const override { return false; }
  uint32_t io_opt() const override { return 0; }
  uint32_t logical_block_size() const override { return 512; }

  std::atomic<unsigned> completed{0};

 private:
  uint64_t latency_ns_;
};

struct Completion {
  unsigned calls = 0;
  int result = 0;
};

// An IoDoneFn for I/O whose `owner` is a Completion.
inline void count_completion(MemberIo& io, int result) {
  auto* c = static_cast<Completion*>(io.owner);
  ++c->calls;
  c->result = result;
}

// `n` reads of consecutive blocks of member 0 into one zeroed buffer, read
// i counted in done[i].
struct Reads {
  AlignedBuffer buf;
  std::vector<MemberIo> ios;
  std::vector<Completion> done;
  explicit Reads(unsigned n)
      : buf(rs::test::must(AlignedBuffer::allocate(size_t(n) * kBlock))), ios(n), done(n) {
    std::memset(buf.data(), 0, buf.size());
    for (unsigned i = 0; i < n; ++i) {
      ios[i].member = 0;
      ios[i].offset = uint64_t(i) * kBlock;
      ios[i].length = kBlock;
      ios[i].buffer = buf.data() + size_t(i) * kBlock;
      ios[i].done = count_completion;
      ios[i].owner = &done[i];
    }
  }
  void queue_all(Backend& b) {
    for (auto& io : ios) b.queue(io);
    b.submit();
  }
  // Every read completed once, whole, with the bytes of block i of a
  // TempFile made with `fill`.
  void check_all(unsigned fill = 1) const {
    for (size_t i = 0; i < ios.size(); ++i) {
      INFO("read " << i);
      CHECK(done[i].calls == 1);
      CHECK(done[i].result == int(kBlock));
      CHECK(buf.data()[i * kBlock] == uint8_t(fill + i));
      CHECK(buf.data()[(i + 1) * kBlock - 1] == uint8_t(fill + i));
    }
  }
};

using rs::test::require_uring;  // tests/common/needs_uring.hpp

// An io_uring backend over `members` (an exception Catch2 reports where
// io_uring is unusable: call require_uring() first to skip instead).
inline std::unique_ptr<UringBackend> uring(std::span<MemberDevice* const> members, unsigned depth) {
  return rs::test::must(UringBackend::create(members, depth));
}

}  // namespace rs::io::test
