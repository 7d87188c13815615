// Text from outside (a job file, an argument, a name read from a disk) made
// safe to show inside a one-line message: control bytes and bytes that are
// not UTF-8 become \xNN (\n, \r and \t by their names), and a long text is
// cut, saying how long it was. A message never carries raw binary or a
// whole 10 MB line.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace rs {

namespace printable_detail {

// Length of the valid UTF-8 sequence starting at text[i] (2 to 4 bytes), or 0.
inline size_t utf8_sequence(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  // Overlong 3- and 4-byte forms, UTF-16 surrogates and code points above U+10FFFF.
  const unsigned char c1 = byte(i + 1);
  if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f))
    return 0;
  return n;
}

}  // namespace printable_detail

// `text` shown safely, at most `max` bytes of it (then "..." and its length).
inline std::string printable(std::string_view text, size_t max = 80) {
  std::string out;
  size_t i = 0;
  for (; i < text.size() && i < max;) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c), ++i;
    } else if (size_t n = c >= 0x80 ? printable_detail::utf8_sequence(text, i) : 0) {
      out.append(text.substr(i, n)), i += n;
    } else {
      const char* named = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : nullptr;
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(c));
      out += named ? named : hex, ++i;
    }
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

// printable() in single quotes: 'text'.
inline std::string quoted_printable(std::string_view text, size_t max = 80) {
  return "'" + printable(text, max) + "'";
}

// The first control byte of `text` (below 0x20, or 0x7f) as a phrase ("a
// newline", "a tab", "byte 0x1b"), with its position; "" when there is none.
inline std::string first_control_byte(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7f) continue;
    char hex[16];
    std::snprintf(hex, sizeof hex, "byte 0x%02x", unsigned(c));
    return std::string(c == '\n' ? "a newline" : c == '\t' ? "a tab" : c == '\r' ? "a carriage return" : hex) +
           " at byte " + std::to_string(i + 1);
  }
  return "";
}

}  // namespace rs
