#include "args.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace rs::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags, const std::set<std::string>& repeatable) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      if (a == "--") {
        positional_.insert(positional_.end(), argv.begin() + long(i) + 1, argv.end());
        break;
      }
      if (a.size() > 1 && a[0] == '-') throw UsageError("unknown option '" + a + "'");
      if (a.empty()) throw UsageError("argument " + std::to_string(i + 1) + " is an empty path ('')");
      positional_.push_back(a);
      continue;
    }
    std::string key = a.substr(2), val;
    bool has_val = false;
    if (auto eq = key.find('='); eq != std::string::npos) {
      val = key.substr(eq + 1);
      key = key.substr(0, eq);
      has_val = true;
    }
    if (flags.count(key)) {
      if (has_val) throw UsageError("option --" + key + " takes no value");
      flags_.insert(key);
      continue;
    }
    if (!valued.count(key)) throw UsageError("unknown option '--" + key + "'");
    if (!has_val) {
      if (i + 1 >= argv.size()) throw UsageError("option --" + key + " needs a value");
      val = argv[++i];
    }
    if (values_.count(key) && !repeatable.count(key)) throw UsageError("option --" + key + " given twice");
    values_[key].push_back(val);
  }
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Args::values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::required(const std::string& name) const {
  auto v = value(name);
  if (!v) throw UsageError("missing required option --" + name);
  if (v->empty()) throw UsageError("--" + name + " is empty ('')");
  return *v;
}

namespace {

enum class SizeError { none, syntax, too_large };

// parse_size, also saying why it failed. Checked arithmetic throughout:
// 18446744073709551619 is too large, never read as 3.
std::optional<uint64_t> parse_size_why(const std::string& text, SizeError* why) {
  *why = SizeError::syntax;
  size_t pos = 0;
  uint64_t n = 0;
  bool overflow = false;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    overflow |=
        __builtin_mul_overflow(n, 10u, &n) || __builtin_add_overflow(n, uint64_t(text[pos++] - '0'), &n);
  }
  if (pos == 0) return std::nullopt;
  // The unit: none, or X, Xi, XB, XiB with X one of K M G T P E (either case).
  std::string_view unit = std::string_view(text).substr(pos);
  if (unit.size() > 1 && (unit.back() == 'B' || unit.back() == 'b')) unit.remove_suffix(1);
  if (unit.size() == 2 && unit.back() == 'i') unit.remove_suffix(1);
  static constexpr std::string_view kUnits = "kmgtpe";  // 2^10 .. 2^60
  int shift = 0;
  if (unit.size() == 1) {
    const size_t power = kUnits.find(char(std::tolower(static_cast<unsigned char>(unit[0]))));
    if (power == std::string_view::npos) return std::nullopt;
    shift = 10 * int(power + 1);
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  if (overflow || (shift && n > ((~uint64_t{0}) >> shift))) {
    *why = SizeError::too_large;
    return std::nullopt;
  }
  *why = SizeError::none;
  return n << shift;
}

}  // namespace

std::optional<uint64_t> parse_size(const std::string& text) {
  SizeError why;
  return parse_size_why(text, &why);
}

std::optional<uint64_t> Args::size(const std::string& name) const {
  auto v = value(name);
  if (!v) return std::nullopt;
  SizeError why;
  auto s = parse_size_why(*v, &why);
  if (why == SizeError::too_large)
    throw UsageError("--" + name + "=" + *v + " is too large (at most 18446744073709551615 bytes, 2^64-1)");
  if (!s) throw UsageError("--" + name + "=" + *v + " is not a size (examples: 4096, 512K, 64M, 1G)");
  return s;
}

std::optional<int64_t> Args::integer(const std::string& name, int64_t min, int64_t max) const {
  auto v = value(name);
  if (!v) return std::nullopt;
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(*v, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != v->size()) throw UsageError("--" + name + "=" + *v + " is not a whole number");
  if (n < min || n > max)
    throw UsageError("--" + name + "=" + *v + " is out of range (" + std::to_string(min) + ".." +
                     std::to_string(max) + ")");
  return n;
}

static uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

ProgressPrinter::ProgressPrinter(std::string what)
    : what_(std::move(what)), tty_(::isatty(2)), start_ns_(now_ns()) {}

void ProgressPrinter::update(uint64_t done, uint64_t total) {
  if (!total) return;
  const uint64_t now = now_ns();
  const double frac = double(done) / double(total);
  const double secs = double(now - start_ns_) / 1e9;
  const double rate = secs > 0 ? double(done) / secs : 0;
  const double eta = rate > 0 ? double(total - done) / rate : 0;
  if (tty_) {
    if (now - last_print_ns_ < 100000000ull && done < total) return;
    last_print_ns_ = now;
    std::fprintf(stderr, "\r%s: %5.1f%% (%.1f MiB/s, ETA %.0fs)   ", what_.c_str(), frac * 100,
                 rate / 1048576.0, eta);
    return;
  }
  int decile = int(frac * 10);
  if (decile == last_decile_) return;
  last_decile_ = decile;
  std::fprintf(stderr, "%s: %d%% (%.1f MiB/s)\n", what_.c_str(), decile * 10, rate / 1048576.0);
}

void ProgressPrinter::finish() {
  if (tty_) std::fprintf(stderr, "\r%s: 100.0%% done%20s\n", what_.c_str(), "");
}

}  // namespace rs::cli
