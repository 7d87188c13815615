// AlignedBuffer's contiguous pages: a multi-page direct I/O from scattered
// order-0 pages is one segment per page, so the job buffers ask for a
// transparent huge page. Checked in /proc/self/smaps: the buffer's mapping
// is backed by huge pages once touched.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "../../common/needs_tool.hpp"
#include "io/member_device.hpp"

using rs::io::AlignedBuffer;

namespace {

// Whether THP may be used on request: "[always]" or "[madvise]", and the
// kernel has huge pages of 2 MiB.
bool thp_on_request() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  std::ifstream size("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  uint64_t bytes = 0;
  size >> bytes;
  return bytes == (2u << 20) && line.find("[never]") == std::string::npos && !line.empty();
}

// AnonHugePages (kB) of the mapping that holds `p`.
uint64_t huge_kb_at(const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = at >= lo && at < hi;
      continue;
    }
    uint64_t kb = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %lu kB", &kb) == 1) return kb;
  }
  return 0;
}

}  // namespace

TEST_CASE("aligned buffer: contiguous pages come from a huge page where THP allows it", "[needs-tool]") {
  if (!thp_on_request()) {
    std::printf("skipped: transparent huge pages are off here\n");
    std::fflush(stdout);
    std::_Exit(77);
  }
  // 8 slots of 64 KiB, as a depth-8 job of 64 KiB writes.
  AlignedBuffer contiguous(512 << 10, 4096, AlignedBuffer::Pages::contiguous);
  REQUIRE(reinterpret_cast<uintptr_t>(contiguous.data()) % (2u << 20) == 0);
  CHECK(contiguous.size() == 512u << 10);
  std::memset(contiguous.data(), 0x5a, contiguous.size());
  // The kernel may find no free 2 MiB block (fragmented memory): then the
  // fault falls back to small pages and says so in thp_fault_fallback. On
  // this test's fresh, small request it finds one.
  CHECK(huge_kb_at(contiguous.data()) >= 2048);

  // The control: the default buffer stays on small pages where THP is only
  // on request.
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  if (mode.find("[madvise]") != std::string::npos) {
    AlignedBuffer plain(4u << 20, 2u << 20);
    std::memset(plain.data(), 0x5a, plain.size());
    CHECK(huge_kb_at(plain.data()) == 0);
  }
}
