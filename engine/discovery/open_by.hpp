// Which processes have a member open: the holder named when a device is
// busy without a kernel holder (another engine opened it O_EXCL) or an
// image file's lock is taken. Read from <proc>/<pid>/fd, so a user other
// than root sees only their own processes.
#pragma once
#include <string>
#include <vector>

#include "discovery/identity.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

struct OpenBy {
  int pid = 0;
  std::string command;  // <proc>/<pid>/comm
};

// Processes other than this one with a descriptor on `id`'s storage: a
// block device by device number, a file by (st_dev, st_ino), a loop
// device also through its backing file. In pid order.
std::vector<OpenBy> processes_with_open(const Identity& id, const SystemRoots& roots = {});

// "pid 4242 (raidscope-cli)", "pids 4242 (raidscope-cli), 4243 (dd)"; "" for none.
std::string describe_processes(const std::vector<OpenBy>& procs);

}  // namespace rs::discovery
