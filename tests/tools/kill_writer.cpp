// rs_kill_writer: the workload of the kill trials (tests/soak/kill-trials.sh).
//
//   rs_kill_writer write LOG SEED MEMBER...   writes until killed
//   rs_kill_writer verify LOG MEMBER...       after the kill: checks every write
//
// `write` loops: assemble, write stamped 4 KiB blocks (block number and a
// version that grows per block) through the array, close cleanly, again, so
// a SIGKILL lands during data writes and during superblock updates alike.
// Before each write it appends "A block version" to LOG, after the array
// acknowledged it "K block version" (plain write(): the lines survive a
// SIGKILL of this process). `verify` assembles the array (waiting for the
// resync an unclean stop starts) and checks that every block holds its last
// acknowledged version or a later attempted one, never anything older,
// torn or misplaced. Exit status: 0 good, 1 a lost or wrong write, 2 usage.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "levels/levels.hpp"
#include "raid/array.hpp"
#include "raid/sync_io.hpp"

namespace {

constexpr uint32_t kBlock = 4096;
constexpr uint64_t kBlocks = 512;  // the first 2 MiB of the array

void stamp(uint8_t* p, uint64_t block, uint64_t version) {
  for (uint32_t i = 0; i < kBlock; i += 16) {
    std::memcpy(p + i, &block, 8);
    std::memcpy(p + i + 8, &version, 8);
  }
}

void log_line(int fd, char kind, uint64_t block, uint64_t version) {
  char line[64];
  const int n = std::snprintf(line, sizeof line, "%c %llu %llu\n", kind, (unsigned long long)block,
                              (unsigned long long)version);
  if (::write(fd, line, size_t(n)) != n) std::_Exit(3);
}

int write_loop(const std::string& log, uint64_t seed, const std::vector<std::string>& members) {
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return std::perror(log.c_str()), 1;
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> version(kBlocks, 0);
  std::vector<uint8_t> buf(kBlock);
  for (;;) {
    auto arr = rs::raid::Array::assemble(rs::levels::builtin(), members);
    if (!arr) return std::fprintf(stderr, "assemble: %s\n", arr.error().message.c_str()), 1;
    {
      rs::raid::SyncIo sio(**arr);
      const int n = 20 + int(rng() % 40);
      for (int i = 0; i < n; ++i) {
        const uint64_t b = rng() % kBlocks;
        const uint64_t v = ++version[b];
        stamp(buf.data(), b, v);
        log_line(fd, 'A', b, v);
        if (rs::Status s = sio.write(b * kBlock, buf.data(), kBlock); !s)
          return std::fprintf(stderr, "write: %s\n", s.error().message.c_str()), 1;
        log_line(fd, 'K', b, v);
      }
    }
    if (rs::Status s = (*arr)->close(); !s) return std::fprintf(stderr, "close: %s\n", s.error().message.c_str()), 1;
  }
}

int verify(const std::string& log, const std::vector<std::string>& members) {
  std::map<uint64_t, uint64_t> acked, attempted;
  std::ifstream in(log);
  char kind;
  uint64_t b, v;
  while (in >> kind >> b >> v) (kind == 'K' ? acked : attempted)[b] = v;
  auto arr = rs::raid::Array::assemble(rs::levels::builtin(), members);
  if (!arr) return std::fprintf(stderr, "assemble after the kill: %s\n", arr.error().message.c_str()), 1;
  if (auto resync = (*arr)->resync_task())
    if (rs::Status s = resync->wait(); !s) return std::fprintf(stderr, "resync: %s\n", s.error().message.c_str()), 1;
  rs::raid::SyncIo sio(**arr);
  std::vector<uint8_t> all(kBlocks * kBlock);
  if (rs::Status s = sio.read(0, all.data(), all.size()); !s)
    return std::fprintf(stderr, "read: %s\n", s.error().message.c_str()), 1;
  int bad = 0;
  for (uint64_t blk = 0; blk < kBlocks; ++blk) {
    const uint8_t* p = all.data() + blk * kBlock;
    uint64_t got_b, got_v;
    std::memcpy(&got_b, p, 8);
    std::memcpy(&got_v, p + 8, 8);
    const bool never = !attempted.count(blk);
    bool torn = false;
    for (uint32_t i = 0; i < kBlock && !never; i += 16) torn |= std::memcmp(p + i, p, 16) != 0;
    const uint64_t lo = acked.count(blk) ? acked[blk] : 0, hi = never ? 0 : attempted[blk];
    // Zeros (the image files start so) are right while no write of the block
    // was acknowledged: the first one may not have landed.
    const bool zeros = got_b == 0 && got_v == 0 && !torn;
    const bool ok = (zeros && lo == 0) || (!torn && got_b == blk && got_v >= lo && got_v <= hi);
    if (!ok && bad++ < 5)
      std::fprintf(stderr, "block %llu: found block %llu version %llu, expected version %llu..%llu%s\n",
                   (unsigned long long)blk, (unsigned long long)got_b, (unsigned long long)got_v,
                   (unsigned long long)lo, (unsigned long long)hi, torn ? " (torn)" : "");
  }
  if (rs::Status s = (*arr)->close(); !s) return std::fprintf(stderr, "close: %s\n", s.error().message.c_str()), 1;
  if (bad) std::fprintf(stderr, "%d block(s) lost or wrong\n", bad);
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc >= 5)
    return write_loop(argv[2], std::strtoull(argv[3], nullptr, 0), std::vector<std::string>(argv + 4, argv + argc));
  if (mode == "verify" && argc >= 4) return verify(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  std::fprintf(stderr, "usage: rs_kill_writer write LOG SEED MEMBER... | verify LOG MEMBER...\n");
  return 2;
}
