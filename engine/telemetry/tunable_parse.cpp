// Text to value for each tunable type, and the messages a refusal shows:
// "name=text: reason" with the valid range, so the user can retype it.
#include <array>
#include <cctype>
#include <charconv>
#include <limits>

#include "telemetry/tunables.hpp"

namespace rs::telemetry {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

enum class NumberParse { ok, malformed, too_large };

// Whole-text decimal integer (an optional leading '-').
NumberParse parse_decimal(std::string_view text, int64_t& out) {
  if (text.empty()) return NumberParse::malformed;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec == std::errc::result_out_of_range) return NumberParse::too_large;
  if (ec != std::errc{} || end != text.data() + text.size()) return NumberParse::malformed;
  return NumberParse::ok;
}

// Non-negative decimal with an optional binary suffix K, M, G or T (any
// case), optionally followed by "B": "128K", "128KB", "1g". "KiB" is
// refused rather than read: fio (and so our job options) reads "1MiB" as
// 1000000, and one tool must not read one text two ways.
NumberParse parse_bytes(std::string_view text, int64_t& out) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return NumberParse::malformed;
  std::string_view suffix = text.substr(digits);
  unsigned shift = 0;
  if (!suffix.empty()) {
    static constexpr std::string_view kLetters = "kmgt";
    const size_t pos = kLetters.find(static_cast<char>(std::tolower(static_cast<unsigned char>(suffix[0]))));
    if (pos == std::string_view::npos) return NumberParse::malformed;
    shift = 10 * unsigned(pos + 1);
    suffix.remove_prefix(1);
    if (!suffix.empty() && !iequals(suffix, "b")) return NumberParse::malformed;
  }
  int64_t n = 0;
  const auto status = parse_decimal(text.substr(0, digits), n);
  if (status != NumberParse::ok) return status;
  if (n > (std::numeric_limits<int64_t>::max() >> shift)) return NumberParse::too_large;
  out = n << shift;
  return NumberParse::ok;
}

struct BooleanSpelling {
  std::string_view yes, no;
};
constexpr std::array<BooleanSpelling, 4> kBooleans{
    {{"on", "off"}, {"1", "0"}, {"true", "false"}, {"yes", "no"}}};

Error refusal(std::string_view shown, std::string_view text, const std::string& reason) {
  return make_error(Errc::invalid_argument, std::string(shown) + "=" + std::string(text) + ": " + reason);
}

}  // namespace

const char* tunable_type_name(TunableType t) {
  switch (t) {
    case TunableType::integer:
      return "integer";
    case TunableType::bytes:
      return "bytes";
    case TunableType::boolean:
      return "boolean";
    case TunableType::choice:
      return "choice";
  }
  return "?";
}

std::string TunableRegistry::range_text(const TunableSpec& spec) {
  switch (spec.type) {
    case TunableType::integer:
    case TunableType::bytes: {
      std::string unit = spec.unit;
      if (unit.empty() && spec.type == TunableType::bytes) unit = "bytes";
      return std::to_string(spec.min) + ".." + std::to_string(spec.max) + (unit.empty() ? "" : " " + unit);
    }
    case TunableType::boolean:
      return "on|off";
    case TunableType::choice:
      return join(spec.choices, "|");
  }
  return {};
}

std::string TunableRegistry::canonical_text(const TunableSpec& spec, int64_t number) {
  switch (spec.type) {
    case TunableType::integer:
    case TunableType::bytes:
      break;
    case TunableType::boolean:
      return number ? "on" : "off";
    case TunableType::choice:
      if (number >= 0 && uint64_t(number) < spec.choices.size()) return spec.choices[size_t(number)];
      break;
  }
  return std::to_string(number);
}

Status TunableRegistry::check_number(const TunableSpec& spec, int64_t number) {
  switch (spec.type) {
    case TunableType::integer:
    case TunableType::bytes:
      if (number < spec.min || number > spec.max)
        return make_error(Errc::invalid_argument, "out of range " + range_text(spec));
      break;
    case TunableType::boolean:
      if (number != 0 && number != 1) return make_error(Errc::invalid_argument, "not 0 (off) or 1 (on)");
      break;
    case TunableType::choice:
      if (number < 0 || uint64_t(number) >= spec.choices.size())
        return make_error(Errc::invalid_argument, "not one of " + join(spec.choices, ", "));
      break;
  }
  if (spec.check) return spec.check(number);
  return {};
}

Result<TunableValue> TunableRegistry::parse(const TunableSpec& spec, std::string_view raw,
                                            std::string_view shown_name) {
  const std::string_view shown = shown_name.empty() ? std::string_view(spec.name) : shown_name;
  const std::string_view text = trim(raw);
  TunableValue v;
  if (spec.parse_text) {
    auto n = spec.parse_text(text);
    if (!n) return refusal(shown, raw, n.error().message);
    if (Status ok = check_number(spec, *n); !ok) return refusal(shown, raw, ok.error().message);
    v.number = *n;
    v.text = canonical_text(spec, v.number);
    return v;
  }
  switch (spec.type) {
    case TunableType::integer:
    case TunableType::bytes: {
      const bool bytes = spec.type == TunableType::bytes;
      const NumberParse status = bytes ? parse_bytes(text, v.number) : parse_decimal(text, v.number);
      if (status == NumberParse::malformed)
        return refusal(shown, raw,
                       std::string(bytes ? "not a size in bytes (digits with an optional K, M, G or T suffix)"
                                         : "not an integer") +
                           "; range " + range_text(spec));
      if (status == NumberParse::too_large || v.number < spec.min || v.number > spec.max)
        return refusal(shown, raw, "out of range " + range_text(spec));
      break;
    }
    case TunableType::boolean: {
      bool found = false;
      for (const auto& b : kBooleans) {
        if (iequals(text, b.yes) || iequals(text, b.no)) {
          v.number = iequals(text, b.yes) ? 1 : 0;
          found = true;
        }
      }
      if (!found) return refusal(shown, raw, "not one of on, off, 1, 0, true, false, yes, no");
      break;
    }
    case TunableType::choice: {
      bool found = false;
      for (size_t i = 0; i < spec.choices.size() && !found; ++i) {
        if (spec.choices[i] == text) {
          v.number = int64_t(i);
          found = true;
        }
      }
      if (!found) return refusal(shown, raw, "not one of " + join(spec.choices, ", "));
      break;
    }
  }
  if (spec.check) {
    if (const Status rule = spec.check(v.number); !rule) return refusal(shown, raw, rule.error().message);
  }
  v.text = canonical_text(spec, v.number);
  return v;
}

}  // namespace rs::telemetry
