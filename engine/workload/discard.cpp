#include "workload/discard.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include <cerrno>

namespace rs::workload {

int discard_range(const io::MemberDevice& dev, uint64_t offset, uint32_t length) {
  if (dev.info().block_device) {
    uint64_t range[2] = {offset, length};
    if (::ioctl(dev.fd(), BLKDISCARD, range) != 0) return -errno;
  } else if (::fallocate(dev.fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset),
                         off_t(length)) != 0) {
    return -errno;
  }
  return int(length);
}

const char* discard_method(const io::MemberDevice& dev) {
  return dev.info().block_device ? "BLKDISCARD" : "fallocate(PUNCH_HOLE)";
}

}  // namespace rs::workload
