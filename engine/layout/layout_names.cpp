#include "layout/layout_names.hpp"

namespace rs::layout {

Result<uint32_t> parse_raid10_layout(const std::string& text, int raid_disks) {
  if (text.size() < 2 || (text[0] != 'n' && text[0] != 'f' && text[0] != 'o') ||
      text.find_first_not_of("0123456789", 1) != std::string::npos || text.size() > 4)
    return make_error(Errc::invalid_argument, "--layout=" + text + ": use n2, f2 or o2 (mdadm's spellings)");
  const int copies = std::stoi(text.substr(1));
  if (copies < 2 || copies > raid_disks)
    return make_error(Errc::invalid_argument,
                      "--layout=" + text + ": copies must be 2.." + std::to_string(raid_disks));
  const uint32_t c = uint32_t(copies);
  if (text[0] == 'n') return 0x100u | c;
  if (text[0] == 'f') return (c << 8) | 1u;
  return 0x10000u | (c << 8) | 1u;
}

}  // namespace rs::layout
