#include "mirror/mirror.hpp"

#include <algorithm>

#include "layout/raid10.hpp"

namespace rs::mirror {

using raid::MemberState;

MirrorPersonality::MirrorPersonality(const raid::Shape& shape, CopyMap map, raid::ArrayCore& core)
    : shape_(shape), map_(std::move(map)), core_(core) {
  for (int i = 0; i < shape.raid_disks; ++i) mirrors_.push_back(std::make_unique<MirrorState>());
}

// The copy maps repeat within a few rounds of raid_disks chunks (map() also
// returns the far copies), so scanning those rounds finds any sector left
// without an in-sync copy.
bool MirrorPersonality::can_run(const raid::MemberTable& table, const std::vector<uint64_t>&) const {
  const uint64_t step = shape_.level == 10 ? shape_.chunk_sectors : std::max<uint64_t>(map_.dev_sectors(), 1);
  const uint64_t rounds = uint64_t(shape_.raid_disks) * uint64_t(map_.copies()) * 4;
  const uint64_t end = std::min<uint64_t>(map_.array_sectors(), step * rounds);
  std::vector<layout::DevAddress> addr(size_t(map_.copies()));
  for (uint64_t sector = 0; sector < end; sector += step) {
    const int n = map_.map(sector, addr.data());
    bool ok = false;
    for (int k = 0; k < n; ++k) {
      const raid::Member& m = table[addr[size_t(k)].disk];
      ok |= m.present() && m.state == MemberState::in_sync;
    }
    if (!ok) return false;
  }
  return true;
}

balance::Tunables MirrorPersonality::balance_tunables() const {
  balance::Tunables t;
  t.min_contig_read = min_contig_read_.load(std::memory_order_relaxed);
  t.rot_round_down = rot_round_down_.load(std::memory_order_relaxed);
  t.nonrot_round_down = nonrot_round_down_.load(std::memory_order_relaxed);
  return t;
}

Status MirrorPersonality::set_balance_tunables(const balance::Tunables& t) {
  if (Status s = balance::validate(t); !s) return s;
  min_contig_read_ = t.min_contig_read;
  rot_round_down_ = t.rot_round_down;
  nonrot_round_down_ = t.nonrot_round_down;
  return {};
}

void MirrorPersonality::register_tunables(telemetry::TunableRegistry& reg) {
  using telemetry::TunableSpec;
  using telemetry::TunableType;
  // In PolicyId order: the choice's index is the policy, so the setter
  // takes the enum as it is. A typed set (balance::kReadPolicy) brings the
  // PolicyId; text (--set, --set-at, the Tune page) is read by
  // balance::parse_policy, the one parser of a policy's name.
  std::vector<std::string> names;
  for (int i = 0; i <= int(balance::PolicyId::BtrfsQlen); ++i)
    names.emplace_back(balance::policy_name(balance::PolicyId(i)));
  TunableSpec spec{std::string(balance::kReadPolicy.name),
                   TunableType::choice,
                   0,
                   0,
                   names,
                   "",
                   "which mirror serves a read: md-legacy (md's read balancing), md-rr (md's, "
                   "spreading reads over idle mirrors), btrfs-pid (by submitter), btrfs-rr (in "
                   "turn), btrfs-qlen (shortest queue)"};
  spec.parse_text = [](std::string_view text) -> Result<int64_t> {
    auto p = balance::parse_policy(text);
    if (!p) return p.take_error();
    return int64_t(*p);
  };
  reg.add(
      std::move(spec), [this](int) { return std::string(balance::policy_name(policy())); },
      [this](int, const telemetry::TunableValue& v) {
        set_policy(balance::PolicyId(v.number));
        return Status{};
      });
  TunableSpec mcr{"min_contig_read",
                  TunableType::bytes,
                  0,
                  64ll << 20,
                  {},
                  "bytes",
                  "btrfs-rr: bytes read from one mirror before moving to the next (0: every request)"};
  mcr.check = telemetry::multiple_of_rule(4096);
  reg.add(
      mcr, [this](int) { return std::to_string(min_contig_read_.load()); },
      [this](int, const telemetry::TunableValue& v) {
        min_contig_read_ = uint32_t(v.number);
        return Status{};
      });
  TunableSpec rot{"rot_round_down",
                  TunableType::integer,
                  1,
                  64,
                  {},
                  "requests",
                  "btrfs-qlen: queue lengths are rounded down to this when a mirror spins"};
  rot.check = telemetry::power_of_two_rule;
  reg.add(
      rot, [this](int) { return std::to_string(rot_round_down_.load()); },
      [this](int, const telemetry::TunableValue& v) {
        rot_round_down_ = uint32_t(v.number);
        return Status{};
      });
  TunableSpec nonrot{"nonrot_round_down",
                     TunableType::integer,
                     1,
                     64,
                     {},
                     "requests",
                     "btrfs-qlen: queue lengths are rounded down to this when no mirror spins"};
  nonrot.check = telemetry::power_of_two_rule;
  reg.add(
      nonrot, [this](int) { return std::to_string(nonrot_round_down_.load()); },
      [this](int, const telemetry::TunableValue& v) {
        nonrot_round_down_ = uint32_t(v.number);
        return Status{};
      });
}

void MirrorPersonality::read_sections(std::vector<telemetry::Section>& out) const {
  telemetry::Section s;
  s.name = "read_balance";
  s.values.emplace_back("read_rr", double(policy_state_.read_rr.load(std::memory_order_relaxed)));
  s.values.emplace_back("total_read_blocks",
                        double(policy_state_.total_read_blocks.load(std::memory_order_relaxed)));
  out.push_back(std::move(s));
}

Result<std::unique_ptr<raid::Personality>> make_mirror(const raid::Shape& shape, raid::ArrayCore& core) {
  auto map = CopyMap::make(shape);
  if (!map) return map.take_error();
  return std::unique_ptr<raid::Personality>(new MirrorPersonality(shape, std::move(*map), core));
}

Result<uint64_t> mirror_used_dev_sectors(const raid::Shape& shape, uint64_t member_sectors) {
  const uint64_t whole = member_sectors / 8 * 8;  // whole 4 KiB blocks
  if (shape.level != 10) return whole;
  auto r10 = layout::raid10_from_layout(shape.layout, shape.raid_disks, shape.chunk_sectors, whole);
  if (!r10) return r10.take_error();
  const uint64_t used = layout::raid10_used_dev_sectors(*r10);
  if (used == 0)
    return make_error(Errc::invalid_argument,
                      "the chunk (" + std::to_string(uint64_t(shape.chunk_sectors) * 512) +
                          " bytes) is larger than a member's data area (" + std::to_string(whole * 512) +
                          " bytes): the array would hold nothing");
  return used;
}

}  // namespace rs::mirror
