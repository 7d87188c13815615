// fio's do_io_u_sync: the system call a sync I/O makes on its file.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "workload/target.hpp"

namespace rs::workload {

// sync_file_range covers the whole file here (offset 0, length 0); fio's
// covers the range the job has written so far (do_sync_file_range).
int sync_fd(int fd, SyncKind kind, unsigned range_flags) {
  int rc = 0;
  switch (kind) {
    case SyncKind::fsync:
      rc = ::fsync(fd);
      break;
    case SyncKind::fdatasync:
      rc = ::fdatasync(fd);
      break;
    case SyncKind::sync_file_range:
      rc = ::sync_file_range(fd, 0, 0, range_flags);
      break;
  }
  return rc == 0 ? 0 : -errno;
}

}  // namespace rs::workload
