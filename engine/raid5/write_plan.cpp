#include "raid5/write_plan.hpp"

namespace rs::raid5 {

const char* write_method_name(WriteMethod m) {
  switch (m) {
    case WriteMethod::full_stripe:
      return "full-stripe";
    case WriteMethod::rmw:
      return "rmw";
    case WriteMethod::rcw:
      return "rcw";
  }
  return "?";
}

WriteChoice choose_write(int pd, std::span<const uint8_t> written, std::span<const uint8_t> readable,
                         std::span<const uint8_t> cached, bool unsynced, int qd) {
  const int disks = int(written.size());
  const int unreadable = 2 * disks;  // md's penalty for a block it cannot read
  int rmw = 0, rcw = 0;
  bool all_data = true;
  for (int i = 0; i < disks; ++i) {
    const int cost = !cached.empty() && cached[size_t(i)] ? 0 : readable[size_t(i)] ? 1 : unreadable;
    const bool parity = i == pd || i == qd;
    if (written[size_t(i)] || parity) rmw += cost;  // old data / old parity
    if (!written[size_t(i)] && !parity) rcw += cost, all_data = false;  // data not being overwritten
  }
  WriteChoice c;
  // As md's handle_stripe_dirtying + schedule_reconstruction: nothing to
  // read for rcw means rcw; a stripe not in sync is rcw while rcw can read
  // what it needs; otherwise rmw when strictly cheaper.
  const bool force_rcw = unsynced && rcw < unreadable;
  if (rcw > 0 && rmw < rcw && !force_rcw) {
    c.method = WriteMethod::rmw;
    c.prereads = rmw;
  } else {
    // Full stripe: every data block overwritten (md's STRIPE_FULL_WRITE).
    c.method = all_data ? WriteMethod::full_stripe : WriteMethod::rcw;
    c.prereads = rcw;
  }
  c.possible = c.prereads < unreadable;
  return c;
}

}  // namespace rs::raid5
