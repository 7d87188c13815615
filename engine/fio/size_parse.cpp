#include "fio/size_parse.hpp"

#include <array>
#include <cctype>

#include "base/printable.hpp"

namespace rs::fio {
namespace {

std::string quoted(std::string_view text) {
  return quoted_printable(text);
}

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_hex_digit(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// Leading decimal digits of `text` into `value`; returns how many were read,
// or std::string_view::npos on overflow.
size_t read_decimal(std::string_view text, uint64_t& value) {
  value = 0;
  size_t i = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    if (__builtin_mul_overflow(value, 10u, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(text[i] - '0'), &value))
      return std::string_view::npos;
  }
  return i;
}

// Common refusals before looking at digits.
std::string precheck(std::string_view text, std::string_view what) {
  if (text.empty()) return "empty " + std::string(what);
  if (text.find('$') != std::string_view::npos)
    return "variable expansion is not supported in " + quoted(text);
  if (text.front() == '(') return "arithmetic expressions are not supported: " + quoted(text);
  if (text.front() == '-' || text.front() == '+') return "signed values are not accepted: " + quoted(text);
  if (!is_digit(text.front())) return "not a number: " + quoted(text);
  return {};
}

bool mul_checked(uint64_t a, uint64_t b, uint64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

// A parse in progress: the number, or the reason it is refused.
struct Parsed {
  uint64_t value = 0;
  bool percent = false;
  std::string error;
  bool ok() const noexcept { return error.empty(); }
};

Result<Number> finish(Parsed r) {
  if (!r.ok()) return make_error(Errc::invalid_argument, std::move(r.error));
  return Number{r.value, r.percent};
}

Parsed size_of(std::string_view text, bool allow_percent) {
  Parsed r;
  if (r.error = precheck(text, "size"); !r.ok()) return r;

  if (text.size() > 2 && text[0] == '0' && lower(text[1]) == 'x') {
    std::string_view hex = text.substr(2);
    uint64_t v = 0;
    for (char c : hex) {
      if (!is_hex_digit(c)) {
        r.error = "bad hexadecimal size " + quoted(text) + " (no suffix is allowed after hex digits)";
        return r;
      }
      unsigned d = is_digit(c) ? c - '0' : lower(c) - 'a' + 10;
      if (!mul_checked(v, 16, v) || __builtin_add_overflow(v, d, &v)) {
        r.error = "size " + quoted(text) + " is too large";
        return r;
      }
    }
    r.value = v;
    return r;
  }

  uint64_t n = 0;
  size_t digits = read_decimal(text, n);
  if (digits == std::string_view::npos) {
    r.error = "size " + quoted(text) + " is too large";
    return r;
  }
  std::string suffix;
  for (char c : text.substr(digits)) suffix += lower(c);

  if (suffix.empty() || suffix == "b") {
    r.value = n;
    return r;
  }
  if (suffix == "%") {
    if (!allow_percent) {
      r.error = "a percentage is not accepted here: " + quoted(text);
    } else if (n < 1 || n > 100) {
      r.error = "percentage must be between 1 and 100: " + quoted(text);
    } else {
      r.value = n;
      r.percent = true;
    }
    return r;
  }
  if (suffix.front() == '.' || suffix.front() == ',') {
    r.error = "fractional sizes are not supported: " + quoted(text) + " (fio 3.33 would drop the fraction)";
    return r;
  }

  static constexpr std::string_view kPrefixes = "kmgtp";
  size_t power = kPrefixes.find(suffix.front());
  std::string_view rest = std::string_view(suffix).substr(1);
  uint64_t base = 0;
  if (power != std::string_view::npos) {
    if (rest.empty() || rest == "b" || rest == "i") base = 1024;  // 4k, 4kb, 4ki
    if (rest == "ib") base = 1000;                                // 4kib: fio's inverted IEC form
  }
  if (base == 0) {
    r.error = "bad size " + quoted(text) + ": unknown suffix " + quoted(text.substr(digits)) +
              " (use k, m, g, t or p, optionally followed by b)";
    return r;
  }
  uint64_t v = n;
  for (size_t i = 0; i <= power; ++i) {
    if (!mul_checked(v, base, v)) {
      r.error = "size " + quoted(text) + " is too large";
      return r;
    }
  }
  r.value = v;
  return r;
}

Parsed time_of(std::string_view text, TimeUnit default_unit) {
  Parsed r;
  if (r.error = precheck(text, "time"); !r.ok()) return r;
  uint64_t n = 0;
  size_t digits = read_decimal(text, n);
  if (digits == std::string_view::npos) {
    r.error = "time " + quoted(text) + " is too large";
    return r;
  }
  std::string unit;
  for (char c : text.substr(digits)) unit += lower(c);

  uint64_t mult = 0;
  if (unit.empty()) mult = static_cast<uint64_t>(default_unit);
  if (unit == "us" || unit == "usec") mult = 1;
  if (unit == "ms" || unit == "msec") mult = 1000;
  if (unit == "s") mult = 1'000'000;
  if (unit == "m") mult = 60'000'000;
  if (unit == "h") mult = 3'600'000'000ULL;
  if (unit == "d") mult = 86'400'000'000ULL;
  if (mult == 0) {
    if (!unit.empty() && (unit.front() == '.' || unit.front() == ','))
      r.error = "fractional times are not supported: " + quoted(text) + " (use a smaller unit, e.g. 1500ms)";
    else if (unit == "sec" || unit == "min")
      r.error = "bad time " + quoted(text) + ": fio 3.33 reads '" + unit +
                "' as microseconds; write s or m instead";
    else
      r.error = "bad time " + quoted(text) + ": unknown unit " + quoted(text.substr(digits)) +
                " (use us, ms, s, m, h or d)";
    return r;
  }
  if (!mul_checked(n, mult, r.value)) r.error = "time " + quoted(text) + " is too large";
  return r;
}

Parsed integer_of(std::string_view text, uint64_t min, uint64_t max) {
  Parsed r = size_of(text, false);
  if (!r.ok()) {
    if (r.error.starts_with("bad size") || r.error.starts_with("fractional"))
      r.error = "not an integer: " + quoted(text);
    return r;
  }
  if (r.value < min || r.value > max)
    r.error = quoted(text) + " is out of range (" + std::to_string(min) + ".." + std::to_string(max) + ")";
  return r;
}

}  // namespace

Result<Number> parse_size(std::string_view text, bool allow_percent) {
  return finish(size_of(text, allow_percent));
}

Result<Number> parse_time(std::string_view text, TimeUnit default_unit) {
  return finish(time_of(text, default_unit));
}

Result<Number> parse_integer(std::string_view text, uint64_t min, uint64_t max) {
  return finish(integer_of(text, min, max));
}

}  // namespace rs::fio
