// fio's data patterns (buffer_pattern=, verify_pattern=), as fio 3.33's
// lib/pattern.c reads them: a run of elements, each one of
//   "text"      the bytes between the double quotes,
//   'file'      the contents of the file (at most the pattern's 512 bytes),
//   0xHEX       the bytes in the order written (0xdeadface: de ad fa ce; an
//               odd digit count has its first digit alone: 0xabc is 0a bc),
//   decimal     a 32-bit integer, least significant byte first, as few bytes
//               as it needs (0 is one zero byte; -12 is f4 ff ff ff); a
//               decimal stops where a later "0x" starts (-120xdead is -12
//               then 0xdead),
// with nothing between them: "abcd"-120xdeadface is 12 bytes. fio's %o
// (the block offset, verify_pattern only) is not supported.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace rs::fio {

inline constexpr size_t kMaxPatternBytes = 512;  // fio's MAX_PATTERN_SIZE

// The pattern's bytes, or an error naming `option` and what is wrong.
Result<std::vector<uint8_t>> parse_pattern(std::string_view option, std::string_view text);

}  // namespace rs::fio
