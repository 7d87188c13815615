// One NBD client connection: the handshake, then the transmission phase
// served as one client of the array session on an I/O context of its own.
//
// Threads (per connection):
//  - the connection's own: negotiates, opens the array, then either waits
//    while the context serves (below) or, where the context's backend
//    cannot receive from a socket (no io_uring) or the server asked for it,
//    is the reader: reads requests and their WRITE payloads (RecvBuffer:
//    every request one recv() brought in), checks them (check_request)
//    and posts them to the context, all it parsed in one post before it
//    blocks again. Last, it tears the connection down.
//  - the context (io::ContextThread): owns the ArrayPort; receives requests
//    on its own ring (Backend::queue_recv: the client's request, the
//    member I/O it starts and the reply are one loop, no thread between),
//    checks them and starts them at once; splits requests into array I/Os
//    of at most 1 MiB (kPieces in flight), completes them, and collects
//    the replies of one turn of its loop; a task it posts to itself sends
//    them in one sendmsg, as far as the socket takes them without
//    blocking. Either receiver stops reading while kMaxJobs requests (or
//    kMaxJobBytes of payload) are unanswered, so a client cannot make the
//    server buffer without bound.
//  - the sender: sends what the socket did not take at once (a large READ
//    to a client reading slower than the array), so the context goes on
//    completing and submitting meanwhile. While it has replies queued, the
//    context queues behind them: replies never interleave or reorder.
//  - the flusher: runs raid::Array::flush (md's REQ_PREFLUSH) for FLUSH and
//    for FUA writes, one flush for every request queued meanwhile, and
//    hands the replies back to the context.
//
// Ending: the client's DISC, EOF or a broken rule (bad magic, a WRITE
// payload larger than the maximum), stop() (the server stopping, the
// session closing), or a reply that cannot be sent. Requests already
// read complete on the array before the connection goes; a WRITE whose
// payload was cut off is never submitted (nothing of it is written).
#pragma once
#include <sys/uio.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "export/buffer_pool.hpp"
#include "export/nbd_proto.hpp"
#include "export/recv_buffer.hpp"
#include "io/context.hpp"
#include "raid/array_port.hpp"
#include "session/array_session.hpp"

namespace rs::nbd {

using Log = std::function<void(const std::string&)>;

class Connection {
 public:
  static constexpr uint32_t kPieceBytes = 1u << 20;  // the largest array I/O one request piece makes
  static constexpr unsigned kPieces = 64;            // array I/Os in flight per connection
  static constexpr unsigned kMaxJobs = 256;          // requests read and not yet answered
  static constexpr uint64_t kMaxJobBytes = 256ull << 20;
  static constexpr size_t kRecvBytes = 64u << 10;  // the reader's buffer of unparsed bytes
  static constexpr int kSocketBufferBytes = 4 << 20;

  // Takes the connected socket `fd` and starts serving it.
  // `receive_on_ring`: on the context's ring when its backend can
  // (ServerOptions::receive_on_ring).
  Connection(int fd, std::string peer, std::shared_ptr<session::ArraySession> session, ExportInfo info,
             Log log, bool receive_on_ring = true);
  ~Connection();  // stop() and join
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Any thread, never blocks: ends the connection (what was read still
  // completes on the array).
  void stop();
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  // Replies the socket did not take whole at once, handed to the sender
  // thread (for tests: that path ran).
  uint64_t replies_to_sender() const { return replies_to_sender_.load(std::memory_order_relaxed); }
  const std::string& peer() const { return peer_; }

 private:
  struct Job;
  struct Piece;
  struct Socket;  // the fd, shared with the session's on_stop (which may outlive us)

  void run();
  bool negotiate();
  bool open_array();
  // The context starts receiving on its ring: false when its backend cannot.
  bool start_ring_receive();
  void read_requests();
  // Reads the request at the front of `in` (and its WRITE payload): the
  // job, or null when the connection ends here (DISC, a broken rule, EOF).
  Job* take_request(int fd, RecvBuffer& in);
  // Takes the request header at the front of `in`: its job (counted, with
  // its buffer, the payload not yet read), or null when the connection
  // ends here (DISC, a broken rule, no memory for a WRITE's payload).
  Job* parse_request(RecvBuffer& in);
  Job* new_job();                // jobs_mutex_ held: a spare one or a new one
  void payload_cut_off(Job* j);  // the client left in the middle of j's payload
  bool room_locked() const;      // jobs_mutex_ held: another request may be read
  bool has_room();
  void wait_for_room();
  // Before the reader blocks (and when it ends), the requests it parsed go
  // to the context in one post.
  void post_batch();
  void teardown();
  // ---- the context thread ----
  // Receiving on the ring: queues the next recv (a header batch, or the
  // rest of a WRITE's payload) unless one is queued, the stream ended or
  // there is no room; false when the backend cannot.
  bool arm_recv();
  static void recv_done(io::MemberIo& io, int result);
  void parse_received();  // starts every complete request received
  void resume_receive();  // after a release: parse and receive again if it stopped for room
  void end_receive();
  void start(Job* j);
  void pump();
  static void piece_done(raid::ArrayIo& io, int result);
  void finish(Job* j);
  void reply(Job* j);
  void send_replies();   // the replies collected so far, in order
  void release(Job* j);  // the reply is sent (or cannot be): the job's room is free
  void fail_send();
  // ---- the sender ----
  void send_loop();
  // ---- the flusher ----
  void flush_loop();
  void queue_flush(Job* j);

  BufferPool buffers_;  // first: the threads below give buffers back until they end
  std::shared_ptr<Socket> socket_;
  const std::string peer_;
  std::shared_ptr<session::ArraySession> session_;
  const ExportInfo info_;
  const Log log_;
  bool structured_ = false;
  const bool receive_on_ring_;
  session::Client client_;

  std::unique_ptr<io::ContextThread> ctx_;
  std::vector<Job*> batch_;  // the reader's: parsed, not yet posted
  // The context thread's alone.
  std::unique_ptr<raid::ArrayPort> port_;
  std::vector<std::unique_ptr<Piece>> pieces_;
  std::vector<Piece*> free_;
  std::deque<Job*> queue_;   // requests with bytes not yet handed to a piece
  io::AlignedBuffer zeros_;  // WRITE_ZEROES' source
  bool pumping_ = false;
  // Replies collected for send_replies(): their headers in reply_heads_.
  struct Pending {
    Job* job;
    size_t head_at, head_len;
    const uint8_t* data;
    size_t len;
  };
  std::vector<Pending> pending_;
  std::vector<uint8_t> reply_heads_;
  std::vector<iovec> iov_;
  bool send_posted_ = false;
  // Receiving on the ring (the context's alone).
  RecvBuffer in_{kRecvBytes};
  io::MemberIo recv_io_;
  bool on_ring_ = false;      // requests come in on the ring
  bool recv_armed_ = false;   // a recv is queued
  bool recv_ended_ = false;   // EOF, a shutdown, DISC or a broken rule
  Job* payload_ = nullptr;    // a WRITE whose payload is still coming
  uint64_t payload_got_ = 0;  // of payload_->req.length
  std::atomic<bool> send_failed_{false};
  unsigned errors_logged_ = 0;

  // Receiver <-> context: requests outstanding; spare jobs for reuse.
  std::mutex jobs_mutex_;
  std::condition_variable jobs_cv_;
  unsigned jobs_ = 0;
  uint64_t job_bytes_ = 0;
  bool receive_done_ = false;  // the receiver read its last request
  bool room_waiter_ = false;   // the reader thread waits for room
  std::vector<Job*> spare_jobs_;

  std::mutex flush_mutex_;
  std::condition_variable flush_cv_;
  std::vector<Job*> flush_queue_;
  bool flush_stop_ = false;
  std::thread flusher_;

  // Context -> sender: replies the socket did not take at once, in order;
  // the front one stays queued while it is being sent.
  struct Outgoing {
    std::vector<uint8_t> head;
    Job* job = nullptr;
    const uint8_t* data = nullptr;
    size_t len = 0;
    size_t sent = 0;  // of head + data
  };
  std::mutex out_mutex_;
  std::condition_variable out_cv_;
  std::deque<Outgoing> out_queue_;
  std::atomic<uint64_t> replies_to_sender_{0};
  bool out_stop_ = false;
  std::thread sender_;

  std::atomic<bool> finished_{false};
  std::thread reader_;
};

}  // namespace rs::nbd
