// Policy dispatch, names and tunable validation.
#include "balance/policy.hpp"

#include <array>

#include "balance/policies.hpp"

namespace rs::balance {
namespace {

struct Named {
  PolicyId id;
  std::string_view name;
};

// The names users type (CLI, job files, GUI); order is the listing order.
constexpr std::array<Named, 5> kPolicies{{
    {PolicyId::MdLegacy, "md-legacy"},
    {PolicyId::MdRr, "md-rr"},
    {PolicyId::BtrfsPid, "btrfs-pid"},
    {PolicyId::BtrfsRr, "btrfs-rr"},
    {PolicyId::BtrfsQlen, "btrfs-qlen"},
}};

constexpr uint32_t kMaxRoundDown = 64;
constexpr uint32_t kBlockBytes = 4096;
constexpr uint32_t kMaxMinContigRead = 64u << 20;

bool is_power_of_two(uint32_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

void check_round_down(std::string& errors, std::string_view name, uint32_t value) {
  if (value >= 1 && value <= kMaxRoundDown && is_power_of_two(value)) return;
  if (!errors.empty()) errors += "; ";
  errors += std::string(name) + " must be a power of two from 1 to " + std::to_string(kMaxRoundDown) +
            ", got " + std::to_string(value);
}

}  // namespace

Choice choose(PolicyId policy, const ReadRequest& req, std::span<const MemberSnapshot> mirrors,
              PolicyState& state, const Tunables& tunables) {
  // Nothing to read, or nowhere to read it from.
  if (mirrors.empty() || req.sectors == 0) return {};
  switch (policy) {
    case PolicyId::MdLegacy:
      return detail::md_read_balance(req, mirrors, state, /*rr=*/false);
    case PolicyId::MdRr:
      return detail::md_read_balance(req, mirrors, state, /*rr=*/true);
    case PolicyId::BtrfsPid:
      return detail::btrfs_pid(req, mirrors);
    case PolicyId::BtrfsRr:
      return detail::btrfs_rr(req, mirrors, state, tunables);
    case PolicyId::BtrfsQlen:
      return detail::btrfs_qlen(req, mirrors, tunables);
  }
  return {};
}

Result<PolicyId> parse_policy(std::string_view name) {
  std::string valid;
  for (const Named& p : kPolicies) {
    if (p.name == name) return p.id;
    valid += (valid.empty() ? "" : ", ") + std::string(p.name);
  }
  return make_error(Errc::invalid_argument,
                    "unknown read policy '" + std::string(name) + "' (valid: " + valid + ")");
}

std::string_view policy_name(PolicyId id) {
  for (const Named& p : kPolicies)
    if (p.id == id) return p.name;
  return "unknown";
}

std::vector<std::string_view> policy_names() {
  std::vector<std::string_view> names;
  names.reserve(kPolicies.size());
  for (const Named& p : kPolicies) names.push_back(p.name);
  return names;
}

Status validate(const Tunables& tunables) {
  std::string errors;
  check_round_down(errors, "rot_round_down", tunables.rot_round_down);
  check_round_down(errors, "nonrot_round_down", tunables.nonrot_round_down);
  const uint32_t mcr = tunables.min_contig_read;
  if (mcr % kBlockBytes != 0 || mcr > kMaxMinContigRead) {
    if (!errors.empty()) errors += "; ";
    errors += "min_contig_read must be 0 or a multiple of " + std::to_string(kBlockBytes) + " up to " +
              std::to_string(kMaxMinContigRead) + " bytes, got " + std::to_string(mcr);
  }
  if (errors.empty()) return {};
  return make_error(Errc::invalid_argument, errors);
}

}  // namespace rs::balance
