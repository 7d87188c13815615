#include "export/connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <utility>

#include "base/unique_fd.hpp"
#include "export/negotiation.hpp"
#include "export/socket_io.hpp"

namespace rs::nbd {

// The socket, reachable from the session's on_stop, which the session may
// call after this connection detached (it copies its client list first):
// so it holds this, never the connection.
struct Connection::Socket {
  std::mutex mutex;
  UniqueFd fd;
  void shutdown(int how) {
    std::lock_guard lock(mutex);
    if (fd) ::shutdown(fd.get(), how);
  }
  void close() {
    std::lock_guard lock(mutex);
    fd.reset();
  }
};

struct Connection::Job {
  Request req;
  Verdict verdict;
  io::AlignedBuffer data;  // READ: what the array returns; WRITE: the payload
  uint64_t next = 0;       // bytes handed to pieces so far
  unsigned pieces = 0;     // pieces in flight
  int error = 0;           // the first piece's -errno, or a flush's
};

struct Connection::Piece {
  raid::ArrayIo io;
  Connection* conn = nullptr;
  Job* job = nullptr;
};

namespace {

uint32_t nbd_error(int neg_errno) {
  switch (-neg_errno) {
    case EINVAL:
      return kEinval;
    case ENOSPC:
      return kEnospc;
    case EPERM:
      return kEperm;
    case ENOMEM:
      return kEnomem;
    default:
      return kEio;
  }
}

bool writes(uint16_t type) {
  return type == kCmdWrite || type == kCmdWriteZeroes || type == kCmdTrim;
}

}  // namespace

Connection::Connection(int fd, std::string peer, std::shared_ptr<session::ArraySession> session,
                       ExportInfo info, Log log, bool receive_on_ring)
    : socket_(std::make_shared<Socket>()),
      peer_(std::move(peer)),
      session_(std::move(session)),
      info_(std::move(info)),
      log_(std::move(log)),
      receive_on_ring_(receive_on_ring) {
  socket_->fd.reset(fd);
  recv_io_.owner = this;
  recv_io_.done = &Connection::recv_done;
  set_send_timeout(fd, 30);
  set_buffer_sizes(fd, kSocketBufferBytes);
  reader_ = std::thread([this] { run(); });
}

Connection::~Connection() {
  stop();
  if (reader_.joinable()) reader_.join();
  for (Job* j : spare_jobs_) delete j;
}

void Connection::stop() {
  socket_->shutdown(SHUT_RD);
}

void Connection::run() {
  if (negotiate() && open_array()) {
    if (!start_ring_receive()) read_requests();
    teardown();
  }
  socket_->close();
  finished_.store(true, std::memory_order_release);
}

bool Connection::negotiate() {
  Negotiation n(info_);
  const int fd = socket_->fd.get();
  const auto greeting = n.greeting();
  if (!write_all(fd, greeting.data(), greeting.size())) return false;
  std::vector<uint8_t> in, out;
  while (n.phase() != Negotiation::Phase::transmission && n.phase() != Negotiation::Phase::closed) {
    in.resize(n.need());
    if (!read_exact(fd, in.data(), in.size())) return false;  // the client left during the handshake
    out.clear();
    n.feed(in.data(), in.size(), out);
    if (!out.empty() && !write_all(fd, out.data(), out.size())) return false;
  }
  if (n.phase() == Negotiation::Phase::closed) {
    if (log_) log_("client " + peer_ + ": handshake ended: " + n.why_closed());
    return false;
  }
  structured_ = n.structured();
  return true;
}

bool Connection::open_array() {
  auto client =
      session_->attach(session::ClientKind::export_, "nbd " + peer_, [s = socket_] { s->shutdown(SHUT_RD); });
  if (!client) {
    if (log_) log_("client " + peer_ + " refused: " + client.error().message);
    return false;
  }
  client_ = std::move(*client);
  raid::Array& array = client_.array();
  ctx_ =
      std::make_unique<io::ContextThread>("nbd-conn", [&array] { return array.make_backend(2 * kPieces); });
  if (!ctx_->status()) {
    if (log_) log_("client " + peer_ + ": no I/O context: " + ctx_->status().error().message);
    ctx_.reset();
    client_.detach();
    return false;
  }
  // Allocated here, where a failure can still refuse the client; the
  // context sees it after the post.
  auto zeros = io::AlignedBuffer::allocate(kPieceBytes);
  if (!zeros) {
    if (log_) log_("client " + peer_ + ": " + zeros.error().message);
    ctx_.reset();
    client_.detach();
    return false;
  }
  zeros_ = std::move(*zeros);
  ctx_->post([this, &array] {
    port_ = std::make_unique<raid::ArrayPort>(array, ctx_->context());
    std::fill(zeros_.data(), zeros_.data() + kPieceBytes, uint8_t{0});
    for (unsigned i = 0; i < kPieces; ++i) {
      auto p = std::make_unique<Piece>();
      p->conn = this;
      p->io.owner = p.get();
      p->io.done = &Connection::piece_done;
      port_->prepare(p->io, kPieceBytes);
      free_.push_back(p.get());
      pieces_.push_back(std::move(p));
    }
  });
  flusher_ = std::thread([this] { flush_loop(); });
  sender_ = std::thread([this] { send_loop(); });
  if (log_) log_("client " + peer_ + " connected");
  return true;
}

bool Connection::start_ring_receive() {
  if (!receive_on_ring_) return false;
  std::promise<bool> armed;
  auto on_ring = armed.get_future();
  ctx_->post([this, &armed] { armed.set_value(on_ring_ = arm_recv()); });
  return on_ring.get();
}

void Connection::read_requests() {
  const int fd = socket_->fd.get();
  RecvBuffer in(kRecvBytes);
  for (;;) {
    if (!has_room()) {
      post_batch();  // their replies make the room
      wait_for_room();
    }
    if (client_.stop_requested()) break;
    if (in.size() < kRequestBytes) {
      post_batch();
      if (!in.fill(fd, kRequestBytes)) break;
      continue;
    }
    Job* j = take_request(fd, in);
    if (!j) break;
    batch_.push_back(j);
  }
  post_batch();  // requests read are always served
  {
    std::lock_guard lock(jobs_mutex_);
    receive_done_ = true;
  }
}

void Connection::post_batch() {
  if (batch_.empty()) return;
  ctx_->post([this, b = std::move(batch_)] {
    for (Job* j : b) start(j);
  });
  batch_.clear();
}

bool Connection::room_locked() const {
  return jobs_ < kMaxJobs && job_bytes_ < kMaxJobBytes;
}

bool Connection::has_room() {
  std::lock_guard lock(jobs_mutex_);
  return room_locked();
}

void Connection::wait_for_room() {
  std::unique_lock lock(jobs_mutex_);
  room_waiter_ = true;
  jobs_cv_.wait(lock, [&] { return room_locked(); });
  room_waiter_ = false;
}

Connection::Job* Connection::take_request(int fd, RecvBuffer& in) {
  Job* j = parse_request(in);
  if (!j || j->req.type != kCmdWrite) return j;
  // The rest of a payload may be slow to come: what was parsed before it
  // goes to the context first.
  if (j->req.length > in.size()) post_batch();
  if (!in.read_into(fd, j->data.data(), j->req.length)) {
    payload_cut_off(j);
    return nullptr;
  }
  return j;
}

Connection::Job* Connection::parse_request(RecvBuffer& in) {
  const auto req = decode_request(in.data());
  if (!req) {
    if (log_) log_("client " + peer_ + ": a request without the NBD magic: disconnected");
    return nullptr;
  }
  in.consume(kRequestBytes);
  Verdict verdict = check_request(*req, info_, structured_);
  if (verdict.disconnect) {
    if (log_) log_("client " + peer_ + ": " + verdict.message + ": disconnected");
    return nullptr;
  }
  if (req->type == kCmdDisc) return nullptr;
  io::AlignedBuffer data;
  if (req->type == kCmdWrite || (req->type == kCmdRead && !verdict.error)) {
    auto buffer = buffers_.take(req->length);
    if (!buffer) {  // a WRITE's payload cannot be skipped over without one: the stream ends
      if (log_) log_("client " + peer_ + ": " + buffer.error().message + ": disconnected");
      return nullptr;
    }
    data = std::move(*buffer);
  }
  std::lock_guard lock(jobs_mutex_);
  Job* j = new_job();
  j->req = *req;
  j->verdict = std::move(verdict);
  j->data = std::move(data);
  ++jobs_;
  job_bytes_ += j->data.size();
  return j;
}

Connection::Job* Connection::new_job() {
  if (spare_jobs_.empty()) return new Job;
  Job* j = spare_jobs_.back();
  spare_jobs_.pop_back();
  return j;
}

void Connection::payload_cut_off(Job* j) {
  if (log_)
    log_("client " + peer_ + " left in the middle of a WRITE's data: nothing of that write was written");
  release(j);
}

void Connection::teardown() {
  // Everything read completes on the array (and is answered, if the client
  // still listens) before the connection lets go of it.
  {
    std::unique_lock lock(jobs_mutex_);
    jobs_cv_.wait(lock, [&] { return receive_done_ && jobs_ == 0; });
  }
  {
    std::lock_guard lock(flush_mutex_);
    flush_stop_ = true;
  }
  flush_cv_.notify_all();
  flusher_.join();
  {
    std::lock_guard lock(out_mutex_);
    out_stop_ = true;
  }
  out_cv_.notify_all();
  sender_.join();
  ctx_->post([this] {
    port_.reset();
    free_.clear();
    pieces_.clear();
  });
  ctx_->stop();
  ctx_.reset();
  const auto io = client_.io().snapshot();
  if (log_)
    log_("client " + peer_ + " left (" + std::to_string(io.reads) + " reads, " +
         std::to_string(io.read_bytes) + " bytes; " + std::to_string(io.writes) + " writes, " +
         std::to_string(io.write_bytes) + " bytes; " + std::to_string(io.errors) + " errors)");
  client_.detach();
}

// ---- the context thread ----

bool Connection::arm_recv() {
  if (recv_armed_ || recv_ended_) return true;
  if (client_.stop_requested()) {
    end_receive();
    return true;
  }
  if (payload_ && payload_->req.length - payload_got_ >= kRecvBytes / 2) {
    // A large payload comes straight into its buffer; a small one, with
    // the requests behind it, into the receive buffer (one recv for many).
    recv_io_.buffer = payload_->data.data() + payload_got_;
    recv_io_.length = uint32_t(payload_->req.length - payload_got_);
    recv_io_.tag = 1;
  } else {
    if (!payload_ && !has_room()) return true;  // a reply's release resumes
    recv_io_.buffer = in_.tail();
    recv_io_.length = uint32_t(in_.room());
    recv_io_.tag = 0;
  }
  if (!ctx_->context().backend().queue_recv(recv_io_, socket_->fd.get())) return false;
  recv_armed_ = true;
  return true;
}

void Connection::recv_done(io::MemberIo& io, int result) {
  auto* c = static_cast<Connection*>(io.owner);
  c->recv_armed_ = false;
  // EOF, a shutdown (stop(), a failed send) or an error: what was received
  // is served, a cut-off payload is not.
  if (result <= 0) return c->end_receive();
  if (io.tag)
    c->payload_got_ += uint64_t(result);
  else
    c->in_.produced(size_t(result));
  c->parse_received();
  c->arm_recv();
}

void Connection::parse_received() {
  while (!recv_ended_) {
    if (payload_) {
      const uint64_t want = payload_->req.length - payload_got_;
      payload_got_ += in_.take(payload_->data.data() + payload_got_, want);
      if (payload_got_ < payload_->req.length) return;
      start(std::exchange(payload_, nullptr));
      continue;
    }
    if (in_.size() < kRequestBytes || !has_room()) return;
    Job* j = parse_request(in_);
    if (!j) return end_receive();
    if (j->req.type == kCmdWrite) {
      payload_ = j;
      payload_got_ = 0;
      continue;
    }
    start(j);
  }
}

void Connection::resume_receive() {
  if (!on_ring_ || recv_armed_ || recv_ended_) return;
  parse_received();
  arm_recv();
}

void Connection::end_receive() {
  recv_ended_ = true;
  if (payload_) payload_cut_off(std::exchange(payload_, nullptr));
  {
    std::lock_guard lock(jobs_mutex_);
    receive_done_ = true;
  }
  jobs_cv_.notify_all();
}

void Connection::start(Job* j) {
  if (j->verdict.error) return reply(j);
  switch (j->req.type) {
    case kCmdFlush:
      return queue_flush(j);
    // The array has no discard: TRIM is advisory and leaves the data as it
    // is (the protocol lets a server ignore it; its FUA then has nothing to
    // make durable).
    case kCmdTrim:
      return reply(j);
    default:
      queue_.push_back(j);
      pump();
  }
}

void Connection::pump() {
  // A piece that completes inside submit() comes back here: the outer loop
  // goes on.
  if (pumping_) return;
  pumping_ = true;
  while (!free_.empty() && !queue_.empty()) {
    Job* j = queue_.front();
    Piece* p = free_.back();
    free_.pop_back();
    const uint32_t len = uint32_t(std::min<uint64_t>(kPieceBytes, j->req.length - j->next));
    raid::ArrayIo& io = p->io;
    p->job = j;
    io.write = j->req.type != kCmdRead;
    io.offset = j->req.offset + j->next;
    io.length = len;
    io.buffer = j->req.type == kCmdWriteZeroes ? zeros_.data() : j->data.data() + j->next;
    j->next += len;
    ++j->pieces;
    if (j->next == j->req.length) queue_.pop_front();
    port_->submit(io);
  }
  pumping_ = false;
}

void Connection::piece_done(raid::ArrayIo& io, int result) {
  auto* p = static_cast<Piece*>(io.owner);
  Connection* c = p->conn;
  Job* j = p->job;
  if (result < 0 && !j->error) j->error = result;
  --j->pieces;
  c->free_.push_back(p);
  if (j->next == j->req.length && j->pieces == 0) c->finish(j);
  c->pump();
}

void Connection::finish(Job* j) {
  if ((j->req.flags & kCmdFlagFua) && writes(j->req.type) && !j->error) return queue_flush(j);
  reply(j);
}

void Connection::reply(Job* j) {
  const Request& r = j->req;
  uint32_t error = j->verdict.error;
  std::string message = j->verdict.message;
  if (!error && j->error) {
    error = nbd_error(j->error);
    message = command_name(r.type) + " at " + std::to_string(r.offset) + " of " + std::to_string(r.length) +
              " bytes failed on the array (" + std::to_string(-j->error) + ")";
  }
  auto& io = client_.io();
  if (error) {
    io.errors.fetch_add(1, std::memory_order_relaxed);
    if (log_ && errors_logged_ < 5)
      log_("client " + peer_ + ": " + errno_name(error) + ": " + message +
           (++errors_logged_ == 5 ? " (further errors of this client are not shown)" : ""));
  } else if (r.type == kCmdRead) {
    io.reads.fetch_add(1, std::memory_order_relaxed);
    io.read_bytes.fetch_add(r.length, std::memory_order_relaxed);
  } else if (r.type == kCmdWrite || r.type == kCmdWriteZeroes) {
    io.writes.fetch_add(1, std::memory_order_relaxed);
    io.write_bytes.fetch_add(r.length, std::memory_order_relaxed);
  }
  std::vector<uint8_t>& head = reply_heads_;
  const size_t head_at = head.size();
  const uint8_t* data = nullptr;
  size_t len = 0;
  if (error && structured_) {
    encode_structured_error(head, r.cookie, error, message);
  } else if (r.type == kCmdRead && structured_) {
    encode_read_chunk_header(head, r.cookie, r.offset, r.length);
    data = j->data.data();
    len = r.length;
  } else {
    encode_simple_reply(head, error, r.cookie);
    if (r.type == kCmdRead && !error) {
      data = j->data.data();
      len = r.length;
    }
  }
  pending_.push_back(Pending{j, head_at, head.size() - head_at, data, len});
  // Sent after this turn's completions: the replies of I/Os that complete
  // together leave in one sendmsg (posted work runs at the start of the
  // next turn, which then does not wait).
  if (!send_posted_) {
    send_posted_ = true;
    ctx_->post([this] { send_replies(); });
  }
}

void Connection::send_replies() {
  send_posted_ = false;
  iov_.clear();
  for (const Pending& p : pending_) {
    iov_.push_back({reply_heads_.data() + p.head_at, p.head_len});
    if (p.len) iov_.push_back({const_cast<uint8_t*>(p.data), p.len});  // a READ's data
  }
  size_t sent = 0;
  bool queued = false;
  {
    std::lock_guard lock(out_mutex_);
    // Only this thread queues, and the sender keeps what it sends queued:
    // with the queue empty, sending here cannot overtake a queued reply.
    if (out_queue_.empty() && !send_failed_.load(std::memory_order_relaxed)) {
      bool failed = false;
      sent = write_now(socket_->fd.get(), iov_.data(), iov_.size(), &failed);
      if (failed) fail_send();
    }
    const bool dropped = send_failed_.load(std::memory_order_relaxed);  // nobody to send to
    for (Pending& p : pending_) {
      const size_t total = p.head_len + p.len;
      const size_t done = std::min(sent, total);
      sent -= done;
      if (dropped || done == total) continue;
      const uint8_t* h = reply_heads_.data() + p.head_at;
      out_queue_.push_back(Outgoing{std::vector<uint8_t>(h, h + p.head_len), p.job, p.data, p.len, done});
      p.job = nullptr;  // the sender releases it
      replies_to_sender_.fetch_add(1, std::memory_order_relaxed);
      queued = true;
    }
  }
  if (queued) out_cv_.notify_one();
  for (const Pending& p : pending_)
    if (p.job) release(p.job);
  pending_.clear();
  reply_heads_.clear();
  resume_receive();
}

void Connection::release(Job* j) {
  const size_t bytes = j->data.size();
  buffers_.give(std::move(j->data));
  *j = Job{};
  bool wake;
  {
    std::lock_guard lock(jobs_mutex_);
    --jobs_;
    job_bytes_ -= bytes;
    spare_jobs_.push_back(j);
    // Only a waiter whose wait is over: the connection's thread waits
    // through the whole transmission phase when the ring receives, and a
    // wake-up per reply cost it a futex call and a context switch each.
    wake = (receive_done_ && jobs_ == 0) || (room_waiter_ && room_locked());
  }
  if (wake) jobs_cv_.notify_all();
}

void Connection::fail_send() {
  // The client is gone or stopped reading: end the connection (the reader
  // sees EOF); what is in flight still completes on the array.
  send_failed_.store(true, std::memory_order_relaxed);
  socket_->shutdown(SHUT_RDWR);
}

// ---- the sender ----

void Connection::send_loop() {
  std::unique_lock lock(out_mutex_);
  for (;;) {
    out_cv_.wait(lock, [&] { return out_stop_ || !out_queue_.empty(); });
    if (out_queue_.empty()) return;  // stopping, nothing left
    Outgoing& o = out_queue_.front();
    lock.unlock();
    if (!send_failed_.load(std::memory_order_relaxed) &&
        !write_all(socket_->fd.get(), o.head.data(), o.head.size(), o.data, o.len, o.sent))
      fail_send();
    Job* j = o.job;
    lock.lock();
    out_queue_.pop_front();
    lock.unlock();
    // On the context: its room may let the ring receive again.
    ctx_->post([this, j] {
      release(j);
      resume_receive();
    });
    lock.lock();
  }
}

// ---- the flusher ----

void Connection::queue_flush(Job* j) {
  {
    std::lock_guard lock(flush_mutex_);
    flush_queue_.push_back(j);
  }
  flush_cv_.notify_one();
}

void Connection::flush_loop() {
  std::vector<Job*> batch;
  for (;;) {
    {
      std::unique_lock lock(flush_mutex_);
      flush_cv_.wait(lock, [&] { return flush_stop_ || !flush_queue_.empty(); });
      if (flush_queue_.empty()) return;  // stopping, nothing left
      batch.swap(flush_queue_);
    }
    // One flush answers every request queued before it began: each one's
    // writes (and, for FLUSH, those of every write answered before it was
    // sent) completed before it was queued.
    const Status s = client_.array().flush();
    for (Job* j : batch) {
      if (!s && !j->error) j->error = -EIO;
      ctx_->post([this, j] { reply(j); });
    }
    if (!s && log_) log_("client " + peer_ + ": flush failed: " + s.error().message);
    batch.clear();
  }
}

}  // namespace rs::nbd
