// The array's members as an immutable snapshot.
//
// A MemberTable says, for every role (raid slot), which device serves it,
// in which state, with which emulated-disk model. It never changes once
// published: failing, replacing or adding a member, or switching a member's
// device profile, publishes a new table (Array::publish). An array I/O takes
// the current table once when it is submitted and keeps it until it
// completes, so the devices it uses stay open however the array changes
// meanwhile; a device is closed when the last table that has it goes.
//
// What changes all the time (counters, a rebuild's progress, read-balance
// state) is not in the table but in per-slot runtime state that lives as
// long as the array (SlotRuntime), so it survives member replacement.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/device_model.hpp"
#include "io/member_device.hpp"
#include "telemetry/member_counters.hpp"

namespace rs::raid {

enum class MemberState : uint8_t { missing, in_sync, recovering, faulty };
const char* member_state_name(MemberState s);  // md's words: "active sync", "recovering", ...

struct Member {
  std::shared_ptr<io::MemberDevice> dev;    // null when missing (or simulated)
  std::shared_ptr<io::DeviceModel> model;   // emulated disk; the only thing a simulated member has
  MemberState state = MemberState::missing;
  std::string name;  // the device path, "sim<N>" for simulated members, "" when missing

  bool present() const { return dev || model; }
  // What the read policies see: the model's figures when there is one.
  bool rotational() const;
  uint32_t io_opt() const;  // bytes, 0 = none
  // In sync or recovering: takes writes.
  bool writable() const { return present() && (state == MemberState::in_sync || state == MemberState::recovering); }
};

struct MemberTable {
  uint64_t version = 0;  // increases with every publish
  std::vector<Member> members;  // one per role

  int size() const { return int(members.size()); }
  const Member& operator[](int slot) const { return members[size_t(slot)]; }
  int count(MemberState s) const;
};

using TableRef = std::shared_ptr<const MemberTable>;

// Per-role state that outlives member tables. All atomic: written on the I/O
// path and by maintenance, read by the sampler and the policies.
struct SlotRuntime {
  telemetry::MemberCounters counters;
  // Device sectors of a recovering member already rebuilt (md's
  // recovery_offset); reads below it may use the member.
  std::atomic<uint64_t> recovery_offset{0};
  std::atomic<bool> write_mostly{false};
  std::atomic<uint32_t> io_opt_override{0};  // bytes, 0: the device's (or model's)
  std::atomic<int8_t> rotational_override{-1};  // -1: the device's (or model's); 0 or 1 forced
  // md's rdev->read_errors (halved for every hour since the last one) and
  // when the last one was (ns, 0: none): the read-error threshold's count.
  std::atomic<uint32_t> read_errors{0};
  std::atomic<uint64_t> last_read_error_ns{0};
};

// Whether member `m` can serve a read of [dev_sector, +sectors): in sync,
// or recovering and rebuilt past it (md's recovery_offset).
inline bool readable_at(const Member& m, const SlotRuntime& rt, uint64_t dev_sector, uint64_t sectors) {
  if (!m.present()) return false;
  if (m.state == MemberState::in_sync) return true;
  return m.state == MemberState::recovering &&
         dev_sector + sectors <= rt.recovery_offset.load(std::memory_order_acquire);
}

}  // namespace rs::raid
