// Fuzzes decode() with mutations of valid superblocks (fixed seed): it must
// never crash (the sanitizer build checks memory), and every block is
// either rejected with a reason or decodes to a superblock that satisfies
// the documented invariants and survives re-encoding unchanged.
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <random>

#include "ondisk/superblock.hpp"
#include "sb_fixtures.hpp"

using namespace rs::ondisk;
using namespace rs::ondisk::testing;

namespace {

// Field offsets worth hitting with boundary values (engine/ondisk/README.md).
struct Field {
  size_t off;
  int width;
};
constexpr Field kFields[] = {
    {0, 4},   {4, 4},   {8, 4},   {12, 4},  {64, 8},  {72, 4},  {76, 4},  {80, 8},  {88, 4},  {92, 4},
    {96, 4},  {128, 8}, {136, 8}, {144, 8}, {152, 8}, {160, 4}, {164, 4}, {184, 1}, {185, 1}, {186, 2},
    {188, 4}, {192, 8}, {200, 8}, {208, 8}, {220, 4}, {224, 4}, {256, 2}, {258, 2}, {262, 2}, {264, 2},
};

uint64_t interesting(std::mt19937_64& rng, const uint8_t* cur, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v |= uint64_t{cur[i]} << (8 * i);
  switch (rng() % 10) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return ~uint64_t{0};
    case 3:
      return v + 1;
    case 4:
      return v - 1;
    case 5:
      return v * 2;
    case 6:
      return v / 2;
    case 7:
      return uint64_t{1} << (rng() % (8 * width));
    case 8:
      return rng() % 4096;
    default:
      return rng();
  }
}

void store(uint8_t* p, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

TEST_CASE("fuzz: mutated superblocks are rejected with a reason or decode to valid values",
          "[superblock][fuzz]") {
  std::vector<std::array<uint8_t, 4096>> seeds;
  for (const auto& g : {kRaid1x2, kRaid10n2, kRaid10f2, kRaid10o2, kRaid5x3}) {
    Superblock sb = make_sb(g, 1);
    seeds.push_back(encode(sb));
    sb.feature_map = kFeatureBitmapOffset | kFeatureRecoveryOffset;
    sb.bitmap_offset = 8;
    sb.recovery_offset = 4096;
    sb.bblog_size = 8;
    sb.bblog_offset = 1992;
    sb.dev_roles.resize(5);  // odd max_dev: checksum ends on a half word
    seeds.push_back(encode(sb));
  }
  const uint64_t device_sizes[] = {kDevBytes, kDevBytes / 2, 4096 + 1024, 2ull << 30, kDevBytes + 511};

  std::mt19937_64 rng(0x5eedf00d);
  constexpr int kIterations = 120000;
  int accepted = 0, rejected = 0, bad = 0;
  std::map<std::string, int> reasons;  // first word(s) of each reason, to see coverage
  std::string first_bad;
  for (int it = 0; it < kIterations; ++it) {
    auto b = seeds[rng() % seeds.size()];
    const int kind = static_cast<int>(rng() % 4);
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      if (kind == 0 || kind == 1) {  // random bit flips in the superblock part
        b[rng() % 1024] ^= static_cast<uint8_t>(1u << (rng() % 8));
      } else {  // boundary values into whole fields
        const Field& f = kFields[rng() % std::size(kFields)];
        store(b.data() + f.off, interesting(rng, b.data() + f.off, f.width), f.width);
      }
    }
    // Kinds 1 and 3 re-checksum so validation past the checksum is reached.
    if (kind == 1 || kind == 3) {
      const uint32_t csum = checksum(b);
      store(b.data() + 216, csum, 4);
    }
    const uint64_t dev = device_sizes[rng() % std::size(device_sizes)];
    const size_t len = rng() % 16 == 0 ? rng() % 4097 : 4096;  // sometimes a short read
    const auto d = decode(std::span<const uint8_t>(b.data(), len), dev);
    if (!d.ok()) {
      ++rejected;
      if (d.error().message.empty() && bad++ == 0) first_bad = "rejected with an empty reason";
      reasons[d.error().message.substr(0, d.error().message.find_first_of(" 0123456789"))]++;
      continue;
    }
    ++accepted;
    if (auto why = check_invariants(*d, dev); !why.empty()) {
      if (bad++ == 0) first_bad = "accepted but violates " + why;
      continue;
    }
    const auto again = decode(encode(*d), dev);
    if (!again.ok() || !(*again == *d)) {
      if (bad++ == 0)
        first_bad =
            "re-encoding changed it: " + (again ? std::string("another superblock") : again.error().message);
    }
  }
  INFO(first_bad);
  CHECK(bad == 0);
  CHECK(accepted + rejected == kIterations);
  // Both outcomes must be common, and rejections must come from more than
  // the checksum: otherwise the fuzz would not reach the field checks.
  CHECK(accepted > kIterations / 50);
  CHECK(rejected > kIterations / 4);
  CHECK(reasons["superblock"] > 0);  // checksum
  CHECK(reasons.size() >= 12);       // many distinct rule families
  for (const auto& [k, v] : reasons) UNSCOPED_INFO(k << ": " << v);
}
