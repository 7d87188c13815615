// RAID6 syndrome cost, measured side by side on the same buffers (not a
// test): ISA-L's pq_gen over the data blocks of a stripe (what a RAID6
// full-stripe write computes), and the recovery of two lost data blocks,
// against memcpy of the same data bytes. The goal is P+Q at >= 0.3 of
// memcpy's rate.
//
//   bench_raid6_pq [DATA_DISKS=4] [BLOCK_KIB=512] [SECONDS=3]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/result_helpers.hpp"
#include "io/member_device.hpp"
#include "raid5/pq_syndrome.hpp"

namespace {

// Bytes of data processed per second by `body` over about `secs` seconds.
template <class F>
double bytes_per_second(double secs, size_t bytes_per_call, F body) {
  body();  // warm the caches and the dispatcher
  uint64_t calls = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double elapsed = 0;
  while ((elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()) < secs) {
    for (int i = 0; i < 16; ++i) body();
    calls += 16;
  }
  return double(calls) * double(bytes_per_call) / elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  const int dd = argc > 1 ? std::atoi(argv[1]) : 4;
  const size_t block = size_t(argc > 2 ? std::atoi(argv[2]) : 512) * 1024;
  const double secs = argc > 3 ? std::atof(argv[3]) : 3.0;
  if (dd < 2 || dd > rs::raid5::kMaxSyndromeData || block == 0 || block % 4096) {
    std::fprintf(stderr, "usage: bench_raid6_pq [DATA_DISKS 2..126] [BLOCK_KIB, multiple of 4] [SECONDS]\n");
    return 2;
  }
  // The data blocks, then P and Q; a copy target of the data's size.
  auto stripe = rs::test::must(rs::io::AlignedBuffer::allocate(size_t(dd + 2) * block));
  auto copy = rs::test::must(rs::io::AlignedBuffer::allocate(size_t(dd) * block));
  for (size_t i = 0; i < stripe.size(); ++i) stripe.data()[i] = uint8_t(i * 131 + 7);
  std::vector<uint8_t*> blocks;
  for (int i = 0; i < dd + 2; ++i) blocks.push_back(stripe.data() + size_t(i) * block);
  const size_t data_bytes = size_t(dd) * block;
  rs::raid5::pq_generate(blocks.data(), dd, blocks[size_t(dd)], blocks[size_t(dd) + 1], block);

  double gen_best = 0, rec_best = 0, copy_best = 0;
  for (int round = 0; round < 3; ++round) {  // interleaved, so all see the same machine state
    const double g = bytes_per_second(secs / 9, data_bytes, [&] {
      rs::raid5::pq_generate(blocks.data(), dd, blocks[size_t(dd)], blocks[size_t(dd) + 1], block);
    });
    const double r = bytes_per_second(secs / 9, data_bytes,
                                      [&] { rs::raid5::pq_recover(blocks.data(), dd, 0, 1, block); });
    const double c =
        bytes_per_second(secs / 9, data_bytes, [&] { std::memcpy(copy.data(), stripe.data(), data_bytes); });
    std::printf("round %d: pq_gen %6.2f GB/s of data   two-data recovery %6.2f GB/s   memcpy %6.2f GB/s\n",
                round + 1, g / 1e9, r / 1e9, c / 1e9);
    gen_best = std::max(gen_best, g);
    rec_best = std::max(rec_best, r);
    copy_best = std::max(copy_best, c);
  }
  std::printf(
      "%d data blocks of %zu KiB: P+Q %.2f GB/s (%.2f x memcpy, goal >= 0.3), two-data recovery %.2f GB/s "
      "(%.2f x memcpy), memcpy %.2f GB/s\n",
      dd, block / 1024, gen_best / 1e9, gen_best / copy_best, rec_best / 1e9, rec_best / copy_best,
      copy_best / 1e9);
  return 0;
}
