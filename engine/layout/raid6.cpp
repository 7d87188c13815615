#include "layout/raid6.hpp"

#include <bit>
#include <utility>

#include "layout/address.hpp"
#include "layout/raid5.hpp"

namespace rs::layout {

namespace {

constexpr uint32_t kQLastOffset = 16;  // ALGORITHM_*_6 = the RAID5 algorithm + 16

// The -6 layouts keep Q on the last member and lay out the rest as RAID5.
bool q_on_last(Raid6Algorithm a) {
  return static_cast<uint32_t>(a) >= kQLastOffset;
}

// The RAID5 layout of the first raid_disks - 1 members of a -6 layout.
Raid5Geometry raid5_part(const Raid6Geometry& g) {
  Raid5Geometry r;
  r.raid_disks = g.raid_disks - 1;
  r.algorithm = static_cast<Raid5Algorithm>(static_cast<uint32_t>(g.algorithm) - kQLastOffset);
  r.chunk_sectors = g.chunk_sectors;
  r.dev_sectors = g.dev_sectors;
  return r;
}

bool is_left(Raid6Algorithm a) {
  return a == Raid6Algorithm::LeftAsymmetric || a == Raid6Algorithm::LeftSymmetric;
}
bool is_symmetric(Raid6Algorithm a) {
  return a == Raid6Algorithm::LeftSymmetric || a == Raid6Algorithm::RightSymmetric;
}

bool known(uint32_t layout) {
  return layout <= 3 || (layout >= 16 && layout <= 19);
}

// Layouts 0..3: the member of data chunk `i` when P is on `pd` and Q just after it.
int rotating_data_disk(const Raid6Geometry& g, int pd, int i) {
  const int n = g.raid_disks;
  if (is_symmetric(g.algorithm)) return (pd + 2 + i) % n;  // after Q, wrapping
  if (pd == n - 1) return i + 1;                           // Q D D D P
  return i < pd ? i : i + 2;                               // D D P Q D
}

}  // namespace

std::string raid6_algorithm_name(uint32_t algorithm) {
  if (!known(algorithm)) return "";
  const bool six = algorithm >= kQLastOffset;
  const std::string base = raid5_algorithm_name(static_cast<Raid5Algorithm>(algorithm % kQLastOffset));
  return six ? base + "-6" : base;
}

Result<Raid6Geometry> raid6_from_layout(uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                        uint64_t dev_sectors) {
  auto fail = [](std::string msg) -> Result<Raid6Geometry> {
    return make_error(Errc::invalid_argument, msg);
  };
  if (!known(layout))
    return fail("raid6 layout " + std::to_string(layout) +
                ": only 0..3 (left/right-asymmetric/symmetric) and 16..19 (the same with Q on the last "
                "member, -6) are supported");
  if (raid_disks < kRaid6MinDisks)
    return fail("raid6 needs at least 4 raid disks, got " + std::to_string(raid_disks));
  if (chunk_sectors < kMinChunkSectors || !std::has_single_bit(chunk_sectors))
    return fail("raid6 chunk of " + std::to_string(chunk_sectors) +
                " sectors: must be a power of two and at least 8 sectors (4 KiB)");
  Raid6Geometry g;
  g.raid_disks = raid_disks;
  g.algorithm = static_cast<Raid6Algorithm>(layout);
  g.chunk_sectors = chunk_sectors;
  g.dev_sectors = dev_sectors;
  return g;
}

uint64_t raid6_array_sectors(const Raid6Geometry& g) {
  const uint64_t whole = g.dev_sectors & ~(static_cast<uint64_t>(g.chunk_sectors) - 1);
  return whole * static_cast<uint64_t>(g.data_disks());
}

Raid6ParityDisks raid6_parity_disks(const Raid6Geometry& g, uint64_t stripe) {
  if (q_on_last(g.algorithm)) return {raid5_parity_disk(raid5_part(g), stripe), g.raid_disks - 1};
  const auto rot = static_cast<int>(stripe % static_cast<uint64_t>(g.raid_disks));
  const int pd = is_left(g.algorithm) ? g.raid_disks - 1 - rot : rot;
  return {pd, (pd + 1) % g.raid_disks};
}

Raid6Address raid6_compute_sector(const Raid6Geometry& g, uint64_t array_sector) {
  Raid6Address a;
  if (q_on_last(g.algorithm)) {
    const Raid5Address r = raid5_compute_sector(raid5_part(g), array_sector);
    a.dd_idx = r.dd_idx;
    a.pd_idx = r.pd_idx;
    a.qd_idx = g.raid_disks - 1;
    a.sector = r.sector;
    return a;
  }
  const int shift = std::countr_zero(g.chunk_sectors);
  const uint64_t chunk = array_sector >> shift;
  const uint64_t stripe = chunk / static_cast<uint64_t>(g.data_disks());
  const auto i = static_cast<int>(chunk % static_cast<uint64_t>(g.data_disks()));
  const Raid6ParityDisks pq = raid6_parity_disks(g, stripe);
  a.pd_idx = pq.pd_idx;
  a.qd_idx = pq.qd_idx;
  a.dd_idx = rotating_data_disk(g, pq.pd_idx, i);
  a.sector = (stripe << shift) + (array_sector & (g.chunk_sectors - 1));
  return a;
}

int raid6_data_index(const Raid6Geometry& g, uint64_t stripe, int disk) {
  const Raid6ParityDisks pq = raid6_parity_disks(g, stripe);
  if (disk == pq.pd_idx || disk == pq.qd_idx) return -1;
  if (q_on_last(g.algorithm)) return raid5_data_index(raid5_part(g), stripe, disk);
  const int n = g.raid_disks;
  if (is_symmetric(g.algorithm)) return (disk - pq.pd_idx - 2 + 2 * n) % n;
  if (pq.pd_idx == n - 1) return disk - 1;
  return disk < pq.pd_idx ? disk : disk - 2;
}

int raid6_syndrome_slot(const Raid6Geometry& g, uint64_t stripe, int disk) {
  const Raid6ParityDisks pq = raid6_parity_disks(g, stripe);
  if (disk == pq.pd_idx || disk == pq.qd_idx) return -1;
  // Q on the last member: the walk starts at member 0 and skips only P.
  if (q_on_last(g.algorithm)) return disk < pq.pd_idx ? disk : disk - 1;
  // Otherwise P comes just before Q, so both close the walk that starts after Q.
  return (disk - pq.qd_idx - 1 + g.raid_disks) % g.raid_disks;
}

std::optional<uint64_t> raid6_compute_blocknr(const Raid6Geometry& g, int disk, uint64_t dev_sector) {
  const int shift = std::countr_zero(g.chunk_sectors);
  const uint64_t stripe = dev_sector >> shift;
  const int i = raid6_data_index(g, stripe, disk);
  if (i < 0) return std::nullopt;
  const uint64_t chunk = stripe * static_cast<uint64_t>(g.data_disks()) + static_cast<uint64_t>(i);
  return (chunk << shift) + (dev_sector & (g.chunk_sectors - 1));
}

}  // namespace rs::layout
