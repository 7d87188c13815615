#include "discovery/safety.hpp"

namespace rs::discovery {

bool Assessment::needs_force() const {
  return !hazards.empty() && !refused();
}

bool Assessment::refused() const {
  for (const auto& h : hazards)
    if (!h.overridable) return true;
  return false;
}

std::string Assessment::summary() const {
  std::string out;
  for (const auto& h : hazards) out += (out.empty() ? "" : "; ") + h.reason;
  return out;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Assessment assess(const BlockDevice& d, const std::vector<OpenBy>& open_by) {
  Assessment a;
  auto never = [&](std::string why) { a.hazards.push_back({std::move(why), false}); };
  auto unless_forced = [&](std::string why) { a.hazards.push_back({std::move(why), true}); };

  if (d.read_only) never("read-only");
  for (const auto& m : d.usage.mountpoints) never("mounted at " + m);
  for (const auto& s : d.usage.swaps) never(s.empty() ? "an active swap device" : "an active swap device (" + s + ")");
  for (const auto& h : d.usage.holders) never("held by " + h);
  if (!open_by.empty()) never("open by " + describe_processes(open_by));
  if (!d.probe_error.empty()) never("contents unknown: " + d.probe_error);

  if (!d.partitions.empty()) unless_forced("partitioned (" + joined(d.partitions) + ")");
  if (d.md) {
    if (d.md->damaged)
      unless_forced("holds a " + d.md->role);
    else
      unless_forced("member of md array " + d.md->array_uuid + " (" + d.md->array_name + ", " + d.md->level + ", " +
                    d.md->role + ")");
  }
  // A partitioned disk's signature is its partition table, already said.
  if (!d.signature.empty() && d.partitions.empty()) unless_forced("holds " + d.signature);
  return a;
}

}  // namespace rs::discovery
