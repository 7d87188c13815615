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
// published) and records a timestamped event. Thread-safe: any thread may
// list, get or set at any time.
//
// Locking contract for owners. set() calls run one at a time (so events are
// in the order the values took effect) and exclude get()/list() while the
// setter runs; remove() waits for running getters and setters, so once it
// returns the removed tunable's callbacks are never called again. Hence:
// - getters and setters run on the caller's thread, must not block on I/O,
//   and must not call set(), get(), list() or remove() (the others are fine);
// - do not call remove() while holding a lock your getters or setters take.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "base/tunable_key.hpp"
#include "telemetry/event_log.hpp"

namespace rs::telemetry {

enum class TunableType {
  integer,  // a decimal count or number in [min, max]
  bytes,    // a size in bytes in [min, max]; decimal, optionally with a binary K/M/G/T (or KB...) suffix
  boolean,  // on/off (also 1/0, true/false, yes/no; any case)
  choice,   // exactly one of `choices`
};
const char* tunable_type_name(TunableType t);  // "integer", "bytes", "boolean", "choice"

struct TunableSpec {
  std::string name;  // md's sysfs name where md has one
  TunableType type = TunableType::integer;
  int64_t min = 0, max = 0;          // integer, bytes
  std::vector<std::string> choices;  // choice
  std::string unit;                  // "stripes", "requests", "" ... (bytes: "bytes" when empty)
  std::string help;                  // one line
  bool per_member = false;           // addressed as rdN/name
  // Further rule beyond the range (a power of two, a multiple of 4096...),
  // called with TunableValue::number once the range check passed: ok when
  // the value is acceptable, else an error saying what is wrong with it
  // ("not a multiple of 4096"), which set() shows as "name=text: <that>".
  std::function<Status(int64_t)> check;
  // The owner's own reader of the text (optional), used instead of the
  // type's: the value's one parser stays the owner's (read_policy:
  // balance::parse_policy), and its refusal, naming the valid values, is
  // what set() shows. Range, choice index and `check` still apply.
  std::function<Result<int64_t>(std::string_view)> parse_text;
};

// Common rules for TunableSpec::check.
std::function<Status(int64_t)> multiple_of_rule(int64_t unit);  // "not a multiple of <unit>"
Status power_of_two_rule(int64_t v);                            // "not a power of two"

// A parsed value: `number` for integer/bytes, 0/1 for boolean, the index
// into `choices` for choice; `text` its canonical spelling (decimal for
// integer and bytes, "on"/"off", the choice's name), which events record.
struct TunableValue {
  int64_t number = 0;
  std::string text;
};

struct TunableInfo {
  TunableSpec spec;
  // Current value (the getter's text): one entry, or one per member (rd0,
  // rd1, ...) for per-member tunables.
  std::vector<std::string> values;
  std::string range_text;  // "0..67108864 bytes", "md-legacy|md-rr|..." (for messages and help)
};

class TunableRegistry {
 public:
  using Getter = std::function<std::string(int member)>;  // member -1 for array-wide
  // Returns an error to refuse; set() prefixes its message with "name=text: ".
  using Setter = std::function<Status(int member, const TunableValue& value)>;

  // `events` (optional, must outlive the registry) receives one event per
  // successful set(): kind "tunable", name as addressed ("rd1/write_mostly"),
  // value the canonical text.
  explicit TunableRegistry(EventLog* events = nullptr) : events_(events) {}
  // Members addressable as rd0..rd(members-1).
  void set_member_count(int members);
  int member_count() const;

  // Registers a tunable (the owner: the array front, a personality, the
  // bitmap). A second add() with the same name replaces the first. An empty
  // `set` makes it read-only (set() fails with Errc::unsupported).
  void add(TunableSpec spec, Getter get, Setter set);
  void remove(const std::string& name);

  // "name=value" split by the caller; `name` may be "rdN/name".
  Status set(std::string_view name, std::string_view value);
  // Typed: the value as its key's type (an enum for a choice, an integer,
  // bool), so no text is parsed on the way; checked as set() checks (range,
  // choice, rule) and recorded the same way. `member` >= 0 addresses rdN.
  template <class T>
  Status set(TunableKey<T> key, T value, int member = -1) {
    return set_number(member < 0 ? std::string(key.name) : key.at(member), static_cast<int64_t>(value));
  }
  Status set_number(std::string_view name, int64_t number);
  // What set() would check (name, member, type, range, rule) without
  // setting: the CLI validates --set-at before a run starts.
  Result<TunableValue> validate(std::string_view name, std::string_view value) const;
  Result<std::string> get(std::string_view name) const;
  std::vector<TunableInfo> list() const;  // in registration order
  bool has(std::string_view name) const;

  // Parses `text` for `spec` and checks range and rule, without setting.
  // Messages name `shown_name` (default spec.name).
  static Result<TunableValue> parse(const TunableSpec& spec, std::string_view text,
                                    std::string_view shown_name = {});
  static std::string range_text(const TunableSpec& spec);
  // Whether `number` is a value `spec` takes (range, choice index, 0/1,
  // the rule): the reason when it is not.
  static Status check_number(const TunableSpec& spec, int64_t number);
  // The canonical spelling of `number` (what parse() puts in
  // TunableValue::text), for owners' getters.
  static std::string canonical_text(const TunableSpec& spec, int64_t number);

 private:
  struct Entry {
    TunableSpec spec;
    Getter get;
    Setter set;
  };
  struct Target {
    std::shared_ptr<const Entry> entry;
    int member = -1;    // -1 array-wide
    std::string shown;  // "rd1/write_mostly", "stripe_cache_size"
  };
  // Splits "rdN/name"; Errc::invalid_argument / not_found with a message.
  Result<Target> find(std::string_view name) const;

  mutable std::shared_mutex calls_;  // setters exclusive, getters shared, remove() exclusive
  mutable std::mutex mutex_;         // entries_ and members_; never held while calling an owner
  std::vector<std::shared_ptr<const Entry>> entries_;
  int members_ = 0;
  EventLog* events_;
};

}  // namespace rs::telemetry
