#include "workload/host_probe.hpp"

#include <algorithm>
#include <vector>

#include "io/uring_backend.hpp"

namespace rs::workload {

double probe_read_bandwidth(io::MemberDevice& dev, uint64_t offset, uint64_t span) {
  constexpr uint32_t kBlock = 1 << 20;
  constexpr unsigned kDepth = 8;
  constexpr uint64_t kProbeNs = 250'000'000;
  io::MemberDevice* devs[] = {&dev};
  auto backend = io::make_real_backend(devs, kDepth).backend;
  auto memory = io::AlignedBuffer::allocate(size_t(kBlock) * kDepth);
  if (!memory) return 0;  // no probe buffer: nothing measured
  io::AlignedBuffer& buf = *memory;
  struct Probe {
    uint64_t bytes = 0;
    std::vector<io::MemberIo*> free;
  } probe;
  std::vector<io::MemberIo> ios(kDepth);
  for (size_t i = 0; i < ios.size(); ++i) {
    ios[i].buffer = buf.data() + i * kBlock;
    ios[i].member = 0;
    ios[i].length = kBlock;
    ios[i].owner = &probe;
    ios[i].done = [](io::MemberIo& m, int res) {
      auto* p = static_cast<Probe*>(m.owner);
      if (res > 0) p->bytes += uint64_t(res);
      p->free.push_back(&m);
    };
    probe.free.push_back(&ios[i]);
  }
  const uint64_t blocks = std::max<uint64_t>(span / kBlock, 1);
  uint64_t next = 0;
  const uint64_t start = io::monotonic_ns();
  while (io::monotonic_ns() - start < kProbeNs) {
    while (!probe.free.empty()) {
      io::MemberIo* m = probe.free.back();
      probe.free.pop_back();
      m->offset = offset + (next++ % blocks) * kBlock;
      backend->queue(*m);
    }
    backend->reap(1);
  }
  while (backend->in_flight()) backend->reap(1);
  return double(probe.bytes) / (double(io::monotonic_ns() - start) / 1e9);
}

}  // namespace rs::workload
