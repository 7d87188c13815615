// Blocking socket reads and writes for the NBD server's threads: whole
// messages or nothing. Interrupted calls are retried; writes never raise
// SIGPIPE (a client that went away is an error return, not a signal).
#pragma once
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

namespace rs::nbd {

// Reads exactly `n` bytes; false on EOF, an error or a shutdown.
bool read_exact(int fd, void* buf, size_t n);
// Writes `a` then `b` (either may be empty) in as few calls as it can,
// from byte `from` of the two on; false when the peer is gone or the send
// timed out.
bool write_all(int fd, const void* a, size_t an, const void* b = nullptr, size_t bn = 0, size_t from = 0);
// Writes what the socket takes now of the `n` buffers of `iov` (one
// sendmsg for many replies), without blocking; returns the bytes written,
// `failed` set when the peer is gone.
size_t write_now(int fd, const iovec* iov, size_t n, bool* failed);
// A reply that cannot be sent within this long ends the connection (a
// client that stopped reading cannot hold the server's thread forever).
void set_send_timeout(int fd, unsigned seconds);
// Asks for socket buffers of `bytes` each way (capped by the kernel's
// wmem_max/rmem_max): a 1 MiB READ reply then goes out in one or two
// sends instead of waking the sender for every ~200 KiB the client takes.
void set_buffer_sizes(int fd, int bytes);

}  // namespace rs::nbd
