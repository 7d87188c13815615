// `serve --fuse=DIR`: the export as a regular file DIR/array, for a
// filesystem on this machine where the kernel has no nbd module:
// losetup -f --show DIR/array, then mkfs and mount the loop device.
//
// Debian ships an NBD client with a FUSE export: qemu-storage-daemon
// (package qemu-system-common, built with FUSE). This starts one that
// connects to the export's socket and exposes it at DIR/array, and stops
// it (which unmounts the file) when serving ends.
#pragma once
#include <sys/types.h>

#include <string>

#include "export/listen_address.hpp"

namespace rs::cli {

class FuseExport {
 public:
  // Starts qemu-storage-daemon and waits (up to 20 s) until DIR/array has
  // the export's size. RuntimeError saying why when it cannot.
  FuseExport(const std::string& dir, const nbd::ListenAddress& address, const std::string& name,
             uint64_t size, bool read_only);
  ~FuseExport();  // stop()
  FuseExport(const FuseExport&) = delete;
  FuseExport& operator=(const FuseExport&) = delete;

  const std::string& file() const { return file_; }
  // Ends the daemon (SIGTERM; it unmounts DIR/array) and waits for it.
  void stop();

 private:
  std::string file_;
  pid_t pid_ = -1;
};

}  // namespace rs::cli
