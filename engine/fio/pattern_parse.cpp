#include "fio/pattern_parse.hpp"

#include <cctype>
#include <string>

#include "base/printable.hpp"
#include "base/read_file.hpp"

namespace rs::fio {
namespace {

Error bad(std::string_view option, std::string_view text, const std::string& why) {
  return make_error(Errc::invalid_argument,
                    std::string(option) + ": bad pattern " + quoted_printable(text) + ": " + why);
}

bool is_hex_start(std::string_view s) {
  return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && std::isxdigit(uint8_t(s[2]));
}

// 0xHEX at the front of `s`: its bytes appended, the characters used
// returned. A hex run followed by "0x" leaves that "0x" to the next element
// (fio: 0xff0x14 is ff then 14).
size_t take_hex(std::string_view s, std::vector<uint8_t>& out) {
  size_t end = 2;
  while (end < s.size() && std::isxdigit(uint8_t(s[end]))) ++end;
  if (end < s.size() && (s[end] == 'x' || s[end] == 'X') && s[end - 1] == '0' && end - 1 > 2) --end;
  std::string_view digits = s.substr(2, end - 2);
  auto nibble = [](char c) {
    return uint8_t(std::isdigit(uint8_t(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
  };
  size_t i = 0;
  if (digits.size() % 2) out.push_back(nibble(digits[i++]));
  for (; i < digits.size(); i += 2) out.push_back(uint8_t(nibble(digits[i]) << 4 | nibble(digits[i + 1])));
  return end;
}

// A decimal at the front of `s`, up to a later "0x" (fio looks ahead for
// one): a 32-bit value, least significant byte first, as few bytes as it
// needs. 0 when there is no number.
size_t take_decimal(std::string_view s, std::vector<uint8_t>& out, bool& range_ok) {
  size_t limit = s.size();
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      limit = i;
      break;
    }
  size_t i = 0;
  bool negative = false;
  if (i < limit && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  const size_t digits_at = i;
  int64_t v = 0;
  range_ok = true;
  while (i < limit && std::isdigit(uint8_t(s[i]))) {
    v = v * 10 + (s[i++] - '0');
    if (v > int64_t(1) << 32) range_ok = false;
  }
  if (i == digits_at) return 0;
  if (negative) v = -v;
  if (v > INT32_MAX || v < INT32_MIN) range_ok = false;
  uint32_t u = uint32_t(int32_t(v));
  if (u == 0) out.push_back(0);
  for (; u; u >>= 8) out.push_back(uint8_t(u & 0xff));
  return i;
}

}  // namespace

Result<std::vector<uint8_t>> parse_pattern(std::string_view option, std::string_view text) {
  std::vector<uint8_t> out;
  std::string_view s = text;
  if (s.empty()) return bad(option, text, "empty");
  while (!s.empty()) {
    if (s[0] == '"' || s[0] == '\'') {
      const size_t close = s.find(s[0], 1);
      if (close == std::string_view::npos) return bad(option, text, "no closing quote");
      const std::string_view inner = s.substr(1, close - 1);
      if (s[0] == '"') {
        out.insert(out.end(), inner.begin(), inner.end());
      } else {  // 'file': its contents (fio's parse_file)
        Result<std::string> read = read_file(std::string(inner));
        if (!read) return bad(option, text, "pattern file " + read.error().message);
        std::string bytes = std::move(read).value();
        if (bytes.empty()) return bad(option, text, "pattern file " + quoted_printable(inner) + " is empty");
        bytes.resize(std::min(bytes.size(), kMaxPatternBytes - std::min(out.size(), kMaxPatternBytes)));
        out.insert(out.end(), bytes.begin(), bytes.end());
      }
      s.remove_prefix(close + 1);
    } else if (s[0] == '%') {
      return bad(option, text, "formats such as %o are not supported");
    } else if (is_hex_start(s)) {
      s.remove_prefix(take_hex(s, out));
    } else {
      bool range_ok = true;
      const size_t used = take_decimal(s, out, range_ok);
      if (!used)
        return bad(option, text, "expected \"text\", 'file', 0xHEX or a decimal at " + quoted_printable(s));
      if (!range_ok) return bad(option, text, "a decimal must fit 32 bits");
      s.remove_prefix(used);
    }
    if (out.size() > kMaxPatternBytes)
      return bad(option, text, "more than " + std::to_string(kMaxPatternBytes) + " bytes");
  }
  return out;
}

}  // namespace rs::fio
