// Opening a block device the user may not open, through UDisks2's
// Block.OpenDevice over the system D-Bus: polkit decides (it may ask for a
// password through the desktop's agent), and UDisks2 passes back an open
// descriptor. Built with sd-bus when libsystemd is found; otherwise every
// call says that support was not built in.
#pragma once
#include <string>

namespace rs::discovery {

struct UdisksOpen {
  int fd = -1;       // the descriptor, owned by the caller; -1 when not opened
  std::string note;  // when fd is -1: why ("UDisks2 is not running: no system D-Bus at ...")
};

// Opens `path` (a block device node) with `flags`: O_RDONLY or O_RDWR, plus
// any of O_EXCL, O_DIRECT, O_SYNC (what OpenDevice accepts); the result is
// close-on-exec.
UdisksOpen udisks_open_device(const std::string& path, int flags);

}  // namespace rs::discovery
