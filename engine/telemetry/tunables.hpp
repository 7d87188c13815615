// The tunables registry: every knob a user may turn while I/O runs, with its
// type, range, unit and one line of help, so the CLI (`tunables`,
// `--set-at`), the GUI's Tune page and reports all read one list.
//
// Names follow md's sysfs names where md has one (`stripe_cache_size`,
// `preread_bypass_threshold`, `write_mostly`...). Per-member tunables are
// addressed as md's `rdN` links are: "rd1/write_mostly" is member (role) 1's.
//
// set() parses the text by the tunable's type, refuses a value outside the
// range naming the valid range (Errc::invalid_argument), calls the owner's
// setter (which makes it take effect: an atomic store, or a new member table
// published) and records a timestamped event. Setters run on the caller's
// thread and must not block on I/O. Thread-safe: any thread may list, get
// or set at any time.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "telemetry/event_log.hpp"

namespace rs::telemetry {

enum class TunableType {
  integer,  // a count or number in [min, max]
  bytes,    // a size in bytes in [min, max]; text may use K/M/G suffixes
  boolean,  // on/off (also 1/0, true/false, yes/no)
  choice,   // one of `choices`
};
const char* tunable_type_name(TunableType t);

struct TunableSpec {
  std::string name;  // md's sysfs name where md has one
  TunableType type = TunableType::integer;
  int64_t min = 0, max = 0;          // integer, bytes
  std::vector<std::string> choices;  // choice
  std::string unit;                  // "bytes", "stripes", "requests", "" ...
  std::string help;                  // one line
  bool per_member = false;           // addressed as rdN/name
  // Further rule beyond the range (a power of two, a multiple of 4096...):
  // returns "" when the value is acceptable, else what is wrong with it.
  std::function<std::string(int64_t)> check;
};

// A parsed value: `number` for integer/bytes/boolean (0/1) and the choice's
// index, `text` its canonical spelling.
struct TunableValue {
  int64_t number = 0;
  std::string text;
};

struct TunableInfo {
  TunableSpec spec;
  // Current value: one entry, or one per member for per-member tunables.
  std::vector<std::string> values;
  std::string range_text;  // "0..67108864 bytes", "md-legacy|md-rr|..." (for messages and help)
};

class TunableRegistry {
 public:
  using Getter = std::function<std::string(int member)>;  // member -1 for array-wide
  using Setter = std::function<Status(int member, const TunableValue& value)>;

  // `events` (optional) receives one event per successful set().
  explicit TunableRegistry(EventLog* events = nullptr) : events_(events) {}
  void set_member_count(int members);

  // Registers a tunable (the owner: the array front, a personality, the
  // bitmap). A second add() with the same name replaces the first.
  void add(TunableSpec spec, Getter get, Setter set);
  void remove(const std::string& name);

  // "name=value" split by the caller; `name` may be "rdN/name".
  Status set(std::string_view name, std::string_view value);
  // Checks that `name` exists and `value` would be accepted, without setting
  // it (a --set-at is validated before the run starts).
  Status check(std::string_view name, std::string_view value) const;
  Result<std::string> get(std::string_view name) const;
  std::vector<TunableInfo> list() const;
  bool has(std::string_view name) const;

  // Parses `text` for `spec` and checks range and rule, without setting
  // (the CLI validates --set-at before a run starts).
  static Result<TunableValue> parse(const TunableSpec& spec, std::string_view text);
  static std::string range_text(const TunableSpec& spec);

 private:
  struct Entry {
    TunableSpec spec;
    Getter get;
    Setter set;
  };
  // Splits "rdN/name"; Errc::invalid_argument / not_found with a message.
  Result<std::pair<const Entry*, int>> find(std::string_view name) const;

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  int members_ = 0;
  EventLog* events_;
};

}  // namespace rs::telemetry
