// UringBackend's socket operations (backend.hpp, "a socket on the owner's
// loop"): kept apart from the member I/O path, which they share only the
// ring and the completion dispatch with.
#include <cerrno>

#include "io/uring_backend.hpp"

namespace rs::io {

bool UringBackend::queue_recv(MemberIo& io, int fd) {
  ++in_flight_;
  // Never held for an emulated disk: the completion path delivers it as is.
  io.model = nullptr;
  if (failed_errno_) {  // completed at the next reap with the ring's error
    refuse(io, failed_errno_);
    return true;
  }
  io_uring_sqe* sqe = next_sqe();
  // A socket with nothing to read is polled inside the ring (no thread
  // blocks on it); the completion comes with the owner's next reap.
  io_uring_prep_recv(sqe, fd, io.buffer, io.length, 0);
  io_uring_sqe_set_data(sqe, &io);
  ++unsubmitted_;
  return true;
}

}  // namespace rs::io
