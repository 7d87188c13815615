// Argument helpers shared by the workload commands (bench, simulate): our
// own options taken out of a fio-style argv, policy/profile/tunable lookups
// that fail as usage errors, and figure formatting.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "balance/policy.hpp"
#include "commands.hpp"
#include "io/device_profile.hpp"

namespace rs::cli {

std::vector<std::string> split(const std::string& s, char sep);

// Our own `--key=value` options (and flags) taken out of argv; the rest is fio's.
struct Split {
  std::map<std::string, std::vector<std::string>> ours;
  std::vector<std::string> fio;
};
Split split_args(const Argv& argv, const std::set<std::string>& valued, const std::set<std::string>& flags);
// The one value of `key`; UsageError when given twice.
std::optional<std::string> one(const Split& s, const std::string& key);
uint32_t parse_u32(const std::string& key, const std::string& text);
// Tunables from the command line, validated (UsageError on a bad value).
std::optional<balance::Tunables> tunables_from(const Split& s);
balance::PolicyId policy_or_usage(const std::string& name);
// A profile by name (resources/profiles/NAME.json) or by path to a JSON file.
io::DeviceProfile profile_or_usage(const std::string& name);

std::string mb(double bytes_per_s);                // "123.4 MB/s", "1.23 GB/s"
std::string shares(const std::vector<double>& v);  // "50/50"

}  // namespace rs::cli
