#include "workload_args.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "args.hpp"
#include "resources.hpp"

namespace rs::cli {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

Split split_args(const Argv& argv, const std::set<std::string>& valued, const std::set<std::string>& flags) {
  Split s;
  for (const auto& a : argv) {
    if (a.rfind("--", 0) == 0) {
      std::string key = a.substr(2), val;
      auto eq = key.find('=');
      if (eq != std::string::npos) val = key.substr(eq + 1), key = key.substr(0, eq);
      if (flags.count(key)) {
        if (eq != std::string::npos) throw UsageError("option --" + key + " takes no value");
        s.ours[key].push_back("");
        continue;
      }
      if (valued.count(key)) {
        if (eq == std::string::npos)
          throw UsageError("option --" + key + " needs a value (--" + key + "=...)");
        s.ours[key].push_back(val);
        continue;
      }
    }
    s.fio.push_back(a);
  }
  return s;
}

std::optional<std::string> one(const Split& s, const std::string& key) {
  auto it = s.ours.find(key);
  if (it == s.ours.end()) return std::nullopt;
  if (it->second.size() > 1) throw UsageError("option --" + key + " given twice");
  return it->second[0];
}

uint32_t parse_u32(const std::string& key, const std::string& text) {
  auto v = parse_size(text);
  if (!v || *v > 0xffffffffull) throw UsageError("--" + key + "=" + text + " is not a valid number");
  return uint32_t(*v);
}

// Tunables from the command line, validated (exit 2 on a bad value).
std::optional<balance::Tunables> tunables_from(const Split& s) {
  balance::Tunables t;
  bool any = false;
  if (auto v = one(s, "min-contig-read")) t.min_contig_read = parse_u32("min-contig-read", *v), any = true;
  if (auto v = one(s, "rot-round-down")) t.rot_round_down = parse_u32("rot-round-down", *v), any = true;
  if (auto v = one(s, "nonrot-round-down"))
    t.nonrot_round_down = parse_u32("nonrot-round-down", *v), any = true;
  if (!any) return std::nullopt;
  if (Status s = balance::validate(t); !s) throw UsageError(s.error().message);
  return t;
}

balance::PolicyId policy_or_usage(const std::string& name) {
  auto p = balance::parse_policy(name);
  if (!p) throw UsageError(p.error().message);
  return *p;
}

// A profile by name (resources/profiles/NAME.json) or by path to a JSON file.
io::DeviceProfile profile_or_usage(const std::string& name) {
  const bool is_path = name.find('/') != std::string::npos || name.ends_with(".json");
  auto p = is_path ? io::load_profile_file(name) : io::find_profile(name, resource_dirs("profiles"));
  if (!p) throw UsageError(p.error().message);
  return *p;
}

std::string mb(double bytes_per_s) {
  char buf[32];
  if (bytes_per_s >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f GB/s", bytes_per_s / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.1f MB/s", bytes_per_s / 1e6);
  return buf;
}

std::string shares(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    if (!s.empty()) s += "/";
    s += std::to_string(int(std::lround(x * 100)));
  }
  return s.empty() ? "-" : s;
}

}  // namespace rs::cli
