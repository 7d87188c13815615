#include "layout/layout_names.hpp"

#include <algorithm>
#include <array>

#include "layout/raid10.hpp"
#include "layout/raid5.hpp"
#include "layout/raid6.hpp"

namespace rs::layout {
namespace {

constexpr uint32_t kMaxCopies = 255;  // the word holds each count in 8 bits

Error layout_error(std::string_view text, const std::string& why) {
  return make_error(Errc::invalid_argument, "--layout=" + std::string(text) + ": " + why);
}

// Decimal digits only, saturating instead of wrapping: any count above
// kMaxCopies is out of range whatever its exact value.
bool parse_copies(std::string_view digits, uint32_t* copies) {
  if (digits.empty()) return false;
  uint32_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    n = std::min<uint32_t>(n * 10 + uint32_t(c - '0'), kMaxCopies + 1);
  }
  *copies = n;
  return true;
}

struct Raid5Name {
  std::string_view name;
  int algorithm;  // -1: known to mdadm, not implemented here
};

// mdadm's maps.c r5layout table, in its order.
constexpr std::array<Raid5Name, 14> kRaid5Names = {{
    {"left-asymmetric", 0},
    {"right-asymmetric", 1},
    {"left-symmetric", 2},
    {"right-symmetric", 3},
    {"default", 2},
    {"la", 0},
    {"ra", 1},
    {"ls", 2},
    {"rs", 3},
    {"parity-first", -1},
    {"parity-last", -1},
    {"ddf-zero-restart", 1},
    {"ddf-N-restart", 0},
    {"ddf-N-continue", 2},
}};

// mdadm's maps.c r6layout table, in its order.
constexpr std::array<Raid5Name, 19> kRaid6Names = {{
    {"left-asymmetric", 0},
    {"right-asymmetric", 1},
    {"left-symmetric", 2},
    {"right-symmetric", 3},
    {"default", 2},
    {"la", 0},
    {"ra", 1},
    {"ls", 2},
    {"rs", 3},
    {"parity-first", -1},
    {"parity-last", -1},
    {"ddf-zero-restart", -1},
    {"ddf-N-restart", -1},
    {"ddf-N-continue", -1},
    {"left-asymmetric-6", 16},
    {"right-asymmetric-6", 17},
    {"left-symmetric-6", 18},
    {"right-symmetric-6", 19},
    {"parity-first-6", -1},
}};

// The algorithm of `text` in one of mdadm's parity layout tables; a name
// the table marks -1 is mdadm's but not laid out here.
template <size_t N>
Result<int> find_parity_layout(const std::array<Raid5Name, N>& table, std::string_view text,
                               std::string_view unsupported, std::string_view unknown) {
  for (const auto& entry : table) {
    if (entry.name != text) continue;
    if (entry.algorithm < 0)
      return make_error(Errc::unsupported,
                        "--layout=" + std::string(text) + ": mdadm's " + std::string(unsupported));
    return entry.algorithm;
  }
  return layout_error(text, std::string(unknown));
}

}  // namespace

Result<uint32_t> parse_raid10_layout(std::string_view text, int raid_disks) {
  const uint32_t max_copies = uint32_t(std::clamp(raid_disks, 0, int(kMaxCopies)));
  const std::string range = "2.." + std::to_string(max_copies);
  uint32_t copies = 0;
  const char kind = text.empty() ? '\0' : text.front();
  if ((kind != 'n' && kind != 'f' && kind != 'o') || !parse_copies(text.substr(1), &copies))
    return layout_error(text,
                        "a raid10 layout is n, f or o followed by the number of copies (e.g. n2, f2, o2)");
  if (raid_disks < 2)
    return layout_error(text, "raid10 needs at least 2 members to hold 2 copies (raid-devices is " +
                                  std::to_string(raid_disks) + ")");
  if (copies < 2 || copies > max_copies) return layout_error(text, "copies must be " + range);
  if (kind == 'n') return 0x100u | copies;
  if (kind == 'f') return (copies << 8) | 1u;
  return kRaid10OffsetBit | (copies << 8) | 1u;
}

std::string raid10_layout_name(uint32_t word) {
  const uint32_t near = word & 0xff, far = (word >> 8) & 0xff;
  const bool offset = word & kRaid10OffsetBit;
  if (word & ~(kRaid10OffsetBit | 0xffffu)) return "";  // far sets or unknown bits
  if (far == 1 && !offset && near >= 1) return "n" + std::to_string(near);
  if (near == 1 && far >= 1) return (offset ? "o" : "f") + std::to_string(far);
  return "";
}

Result<int> parse_raid5_layout(std::string_view text) {
  return find_parity_layout(kRaid5Names, text,
                            "raid5 layout, but not implemented by RaidScope (use left-symmetric, "
                            "left-asymmetric, right-symmetric or right-asymmetric)",
                            "unknown raid5 layout (use left-symmetric, left-asymmetric, right-symmetric, "
                            "right-asymmetric, or ls, la, rs, ra)");
}

std::string raid5_layout_name(int algorithm) {
  if (algorithm < 0 || algorithm > 3) return "";
  return raid5_algorithm_name(static_cast<Raid5Algorithm>(algorithm));
}

Result<int> parse_raid6_layout(std::string_view text) {
  return find_parity_layout(kRaid6Names, text,
                            "raid6 layout, but not implemented by RaidScope (use left-symmetric, "
                            "left-asymmetric, right-symmetric, right-asymmetric, or one of them with -6)",
                            "unknown raid6 layout (use left-symmetric, left-asymmetric, right-symmetric, "
                            "right-asymmetric, ls, la, rs, ra, or left-symmetric-6, left-asymmetric-6, "
                            "right-symmetric-6, right-asymmetric-6)");
}

std::string raid6_layout_name(int algorithm) {
  if (algorithm < 0) return "";
  return raid6_algorithm_name(static_cast<uint32_t>(algorithm));
}

}  // namespace rs::layout
