// Command-line parsing for raidscope-cli: mdadm-like `--key=value` / `--key
// value` options, boolean flags and positional members. Every problem is a
// UsageError naming what is wrong (exit status 2).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace rs::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct RuntimeError : std::runtime_error {  // exit status 1
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `valued`: options that take a value; `flags`: options that do not;
  // `repeatable`: valued options that may be given more than once.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
       const std::set<std::string>& flags, const std::set<std::string>& repeatable = {});

  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;
  std::string required(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

  // Typed accessors: throw UsageError naming the option and the bad text.
  std::optional<uint64_t> size(const std::string& name) const;  // 512K, 1M, 4G, 4096
  std::optional<int64_t> integer(const std::string& name, int64_t min, int64_t max) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
};

// "512K" → 524288, "1M", "2G", "4096", "4k" (binary units, as mdadm takes
// them; K M G T P E, either case, optionally followed by "i", "B" or "iB").
// nullopt for anything else and for values above 2^64-1 (never wraps).
std::optional<uint64_t> parse_size(const std::string& text);

// Progress on stderr: a live line on a terminal, a line per 10% otherwise.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::string what);
  void update(uint64_t done, uint64_t total);
  void finish();

 private:
  std::string what_;
  bool tty_;
  int last_decile_ = -1;
  uint64_t start_ns_;
  uint64_t last_print_ns_ = 0;
};

}  // namespace rs::cli
