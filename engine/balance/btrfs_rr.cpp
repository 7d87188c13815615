// btrfs-rr: BTRFS_READ_POLICY_RR as in kernel 6.14 (fs/btrfs/volumes.c
// btrfs_read_rr, seed 002's idea plus rr_min_contig_read): read
// min_contig_read bytes from one mirror, then move to the next in devid order.
#include "balance/policies.hpp"

namespace rs::balance::detail {
namespace {

constexpr uint32_t kBlockBytes = 4096;    // btrfs sectorsize
constexpr uint32_t kSectorsPerBlock = 8;  // 4096 / 512

// Position of mirror `i` among the mirrors sorted by devid (slot); equal
// slots keep stripe order. Counting instead of sorting keeps the hot path
// free of allocation for any number of mirrors (btrfs has at most 4).
size_t devid_rank(std::span<const MemberSnapshot> mirrors, size_t i) {
  size_t rank = 0;
  for (size_t j = 0; j < mirrors.size(); ++j)
    if (mirrors[j].slot < mirrors[i].slot || (mirrors[j].slot == mirrors[i].slot && j < i)) ++rank;
  return rank;
}

int mirror_at_rank(std::span<const MemberSnapshot> mirrors, size_t rank) {
  for (size_t i = 0; i < mirrors.size(); ++i)
    if (devid_rank(mirrors, i) == rank) return static_cast<int>(i);
  return -1;  // unreachable: ranks are a permutation of 0..n-1
}

}  // namespace

Choice btrfs_rr(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, PolicyState& state,
                const Tunables& tunables) {
  const size_t n = mirrors.size();
  bool any_readable = false;
  for (const MemberSnapshot& m : mirrors) any_readable = any_readable || m.readable;
  if (!any_readable) return {};  // nothing is submitted, so nothing is counted

  // btrfs counts read blocks at submission, right after the mirror is
  // chosen: fetch_add returns the count before this request, as
  // percpu_counter_sum(stats_read_blocks) sees it in btrfs_read_rr. A request
  // smaller than a block still counts as one (btrfs never issues those).
  const uint64_t blocks = (uint64_t{req.sectors} + kSectorsPerBlock - 1) / kSectorsPerBlock;
  const uint64_t blocks_before = state.total_read_blocks.fetch_add(blocks, std::memory_order_relaxed);

  // min_contig_read below one block (0, or invalid) means: per request.
  const uint64_t min_reads_per_dev = tunables.min_contig_read / kBlockBytes;
  const uint64_t read_cycle = min_reads_per_dev == 0
                                  ? state.total_read_requests.fetch_add(1, std::memory_order_relaxed)
                                  : blocks_before / min_reads_per_dev;

  // The mirror whose turn it is, or, if it cannot read, the next readable
  // one in devid order. (find_live_mirror would take the first readable one
  // in stripe order; the next one keeps reads moving through the survivors.)
  for (size_t step = 0; step < n; ++step) {
    const int index = mirror_at_rank(mirrors, (read_cycle + step) % n);
    if (mirrors[index].readable) return {index, req.sectors};
  }
  return {};
}

}  // namespace rs::balance::detail
