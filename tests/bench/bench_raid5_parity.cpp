// RAID5 parity cost, measured side by side on the same buffers (not a
// test): ISA-L's xor_gen over the data blocks of a stripe (what a
// full-stripe write computes) against memcpy of the same data bytes. The
// goal is parity at >= 0.5 of memcpy's rate.
//
//   bench_raid5_parity [DATA_DISKS=3] [BLOCK_KIB=512] [SECONDS=2]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/result_helpers.hpp"
#include "io/member_device.hpp"
#include "raid5/parity.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs `body` for about `secs` seconds; returns bytes of data processed per second.
template <class F>
double rate(double secs, size_t bytes_per_call, F body) {
  body();  // warm the caches and the dispatcher
  uint64_t calls = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double elapsed = 0;
  while ((elapsed = seconds_since(t0)) < secs) {
    for (int i = 0; i < 16; ++i) body();
    calls += 16;
  }
  return double(calls) * double(bytes_per_call) / elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  const int dd = argc > 1 ? std::atoi(argv[1]) : 3;
  const size_t block = size_t(argc > 2 ? std::atoi(argv[2]) : 512) * 1024;
  const double secs = argc > 3 ? std::atof(argv[3]) : 2.0;
  if (dd < 2 || block == 0 || block % 4096) {
    std::fprintf(stderr, "usage: bench_raid5_parity [DATA_DISKS>=2] [BLOCK_KIB, multiple of 4] [SECONDS]\n");
    return 2;
  }
  // The data blocks, the parity block and a copy target of the data's size.
  auto data = rs::test::must(rs::io::AlignedBuffer::allocate(size_t(dd) * block));
  auto parity = rs::test::must(rs::io::AlignedBuffer::allocate(block));
  auto copy = rs::test::must(rs::io::AlignedBuffer::allocate(size_t(dd) * block));
  for (size_t i = 0; i < data.size(); ++i) data.data()[i] = uint8_t(i * 131 + 7);
  std::memset(copy.data(), 0, copy.size());
  std::vector<uint8_t*> src;
  for (int i = 0; i < dd; ++i) src.push_back(data.data() + size_t(i) * block);

  // Interleaved rounds so both see the same machine state; the data bytes
  // each reads are the same (dd blocks).
  double xor_best = 0, copy_best = 0;
  for (int round = 0; round < 3; ++round) {
    const double x =
        rate(secs / 3, data.size(), [&] { rs::raid5::xor_into(parity.data(), src.data(), dd, block); });
    const double c = rate(secs / 3, data.size(), [&] { std::memcpy(copy.data(), data.data(), data.size()); });
    std::printf("round %d: ISA-L xor_gen %6.2f GB/s of data   memcpy %6.2f GB/s   ratio %.2f\n", round + 1,
                x / 1e9, c / 1e9, x / c);
    xor_best = std::max(xor_best, x);
    copy_best = std::max(copy_best, c);
  }
  std::printf("%d data blocks of %zu KiB: parity %.2f GB/s, memcpy %.2f GB/s, ratio %.2f (goal >= 0.5)\n", dd,
              block / 1024, xor_best / 1e9, copy_best / 1e9, xor_best / copy_best);
  return 0;
}
