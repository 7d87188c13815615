// btrfs-pid: BTRFS_READ_POLICY_PID, btrfs's default read policy
// (fs/btrfs/volumes.c find_live_mirror): the submitting task's pid modulo the
// number of mirrors, so one job sticks to one mirror.
#include "balance/policies.hpp"

namespace rs::balance::detail {

int btrfs_live_mirror(std::span<const MemberSnapshot> mirrors, int preferred) {
  if (preferred >= 0 && mirrors[preferred].readable) return preferred;
  for (size_t i = 0; i < mirrors.size(); ++i)
    if (mirrors[i].readable) return static_cast<int>(i);
  return -1;
}

Choice btrfs_pid(const ReadRequest& req, std::span<const MemberSnapshot> mirrors) {
  const int preferred = static_cast<int>(req.job_id % mirrors.size());
  const int index = btrfs_live_mirror(mirrors, preferred);
  // btrfs keeps no bad-block list: the whole request goes to one mirror.
  return {index, index >= 0 ? req.sectors : 0};
}

}  // namespace rs::balance::detail
