#include "telemetry/tunables.hpp"

#include <algorithm>
#include <charconv>

namespace rs::telemetry {

namespace {

std::string member_range(int members) {
  if (members <= 0) return "the array has no members";
  return "the array has " + std::to_string(members) + (members == 1 ? " member" : " members") + ", rd0..rd" +
         std::to_string(members - 1);
}

// "rd12" -> 12; -1 when `prefix` is not rd followed by a decimal number.
int parse_rd(std::string_view prefix) {
  if (prefix.size() < 3 || prefix.substr(0, 2) != "rd") return -1;
  int n = -1;
  const auto digits = prefix.substr(2);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size() || n < 0) return -1;
  return n;
}

}  // namespace

void TunableRegistry::set_member_count(int members) {
  std::lock_guard lock(mutex_);
  members_ = std::max(members, 0);
}

int TunableRegistry::member_count() const {
  std::lock_guard lock(mutex_);
  return members_;
}

std::function<Status(int64_t)> multiple_of_rule(int64_t unit) {
  return [unit](int64_t v) -> Status {
    if (v % unit == 0) return {};
    return make_error(Errc::invalid_argument, "not a multiple of " + std::to_string(unit));
  };
}

Status power_of_two_rule(int64_t v) {
  if (v > 0 && (v & (v - 1)) == 0) return {};
  return make_error(Errc::invalid_argument, "not a power of two");
}

void TunableRegistry::add(TunableSpec spec, Getter get, Setter set) {
  auto entry = std::make_shared<const Entry>(Entry{std::move(spec), std::move(get), std::move(set)});
  std::lock_guard lock(mutex_);
  for (auto& e : entries_) {
    if (e->spec.name == entry->spec.name) {
      e = std::move(entry);
      return;
    }
  }
  entries_.push_back(std::move(entry));
}

void TunableRegistry::remove(const std::string& name) {
  std::unique_lock calls(calls_);  // waits for running getters and setters
  std::lock_guard lock(mutex_);
  std::erase_if(entries_, [&](const auto& e) { return e->spec.name == name; });
}

Result<TunableRegistry::Target> TunableRegistry::find(std::string_view name) const {
  std::string_view base = name;
  int member = -1;
  if (const size_t slash = name.find('/'); slash != std::string_view::npos) {
    base = name.substr(slash + 1);
    member = parse_rd(name.substr(0, slash));
    if (member < 0)
      return make_error(Errc::invalid_argument, std::string(name) +
                                                    ": a per-member tunable is addressed as rdN/" +
                                                    std::string(base) + ", N the member's role");
  }
  std::lock_guard lock(mutex_);
  const auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e->spec.name == base; });
  if (it == entries_.end()) {
    std::string known;
    for (const auto& e : entries_)
      known += (known.empty() ? "" : ", ") + (e->spec.per_member ? "rdN/" : std::string()) + e->spec.name;
    return make_error(Errc::not_found, "no tunable named \"" + std::string(base) +
                                           "\"; tunables: " + (known.empty() ? "none registered" : known));
  }
  const TunableSpec& spec = (*it)->spec;
  if (member >= 0 && !spec.per_member)
    return make_error(
        Errc::invalid_argument,
        std::string(name) + ": " + spec.name + " is array-wide, not per member; address it as " + spec.name);
  if (member < 0 && spec.per_member)
    return make_error(Errc::invalid_argument, std::string(name) + ": " + spec.name +
                                                  " is per member; address it as rdN/" + spec.name + " (" +
                                                  member_range(members_) + ")");
  if (member >= members_)
    return make_error(Errc::invalid_argument, std::string(name) + ": no member rd" + std::to_string(member) +
                                                  "; " + member_range(members_));
  Target t{*it, member, member >= 0 ? "rd" + std::to_string(member) + "/" + spec.name : spec.name};
  return t;
}

Result<TunableValue> TunableRegistry::validate(std::string_view name, std::string_view value) const {
  auto t = find(name);
  if (!t) return t.take_error();
  return parse(t->entry->spec, value, t->shown);
}

Status TunableRegistry::set(std::string_view name, std::string_view value) {
  std::unique_lock calls(calls_);  // one set at a time: events in the order values took effect
  auto t = find(name);
  if (!t) return t.take_error();
  auto v = parse(t->entry->spec, value, t->shown);
  if (!v) return v.take_error();
  if (!t->entry->set) return make_error(Errc::unsupported, t->shown + ": read-only");
  if (const Status st = t->entry->set(t->member, *v); !st)
    return make_error(st.error().code, t->shown + "=" + std::string(value) + ": " + st.error().message);
  if (events_) events_->record(Event{.kind = "tunable", .name = t->shown, .value = v->text});
  return {};
}

Status TunableRegistry::set_number(std::string_view name, int64_t number) {
  std::unique_lock calls(calls_);  // one set at a time: events in the order values took effect
  auto t = find(name);
  if (!t) return t.take_error();
  const TunableSpec& spec = t->entry->spec;
  const std::string text = canonical_text(spec, number);
  if (Status ok = check_number(spec, number); !ok)
    return make_error(Errc::invalid_argument, t->shown + "=" + text + ": " + ok.error().message);
  if (!t->entry->set) return make_error(Errc::unsupported, t->shown + ": read-only");
  if (const Status st = t->entry->set(t->member, TunableValue{number, text}); !st)
    return make_error(st.error().code, t->shown + "=" + text + ": " + st.error().message);
  if (events_) events_->record(Event{.kind = "tunable", .name = t->shown, .value = text});
  return {};
}

Result<std::string> TunableRegistry::get(std::string_view name) const {
  std::shared_lock calls(calls_);
  auto t = find(name);
  if (!t) return t.take_error();
  return t->entry->get ? t->entry->get(t->member) : std::string();
}

std::vector<TunableInfo> TunableRegistry::list() const {
  std::shared_lock calls(calls_);
  std::vector<std::shared_ptr<const Entry>> entries;
  int members = 0;
  {
    std::lock_guard lock(mutex_);
    entries = entries_;
    members = members_;
  }
  std::vector<TunableInfo> out;
  out.reserve(entries.size());
  for (const auto& e : entries) {
    TunableInfo info{e->spec, {}, range_text(e->spec)};
    if (e->spec.per_member) {
      for (int m = 0; m < members; ++m) info.values.push_back(e->get ? e->get(m) : std::string());
    } else {
      info.values.push_back(e->get ? e->get(-1) : std::string());
    }
    out.push_back(std::move(info));
  }
  return out;
}

bool TunableRegistry::has(std::string_view name) const {
  return find(name).ok();
}

}  // namespace rs::telemetry
