#include "raid/sync_io.hpp"

#include <cstring>
#include <vector>

namespace rs::raid {

namespace {
constexpr uint32_t kPiece = 1 << 20;
constexpr size_t kDepth = 8;
constexpr uint64_t kBlock = 4096;

struct Pending {
  size_t busy = 0;
  int error = 0;
  uint8_t* user = nullptr;  // reads land here
  uint64_t base = 0;        // array offset of user[0]
  std::vector<ArrayIo*> free;
};

// What the members said while a failed I/O ran: their errors name the
// cause (a full disk, a read-only device) where the array's result is EIO.
std::string member_errors(const telemetry::EventLog& log, uint64_t after) {
  std::string out;
  for (const auto& e : log.since(after))
    if (e.kind == "member" && (e.value == "faulty" || e.value == "error"))
      out += (out.empty() ? "" : "; ") + e.name + (e.value == "faulty" ? " failed: " : ": ") + e.message;
  return out;
}

void piece_done(ArrayIo& io, int result) {
  auto* st = static_cast<Pending*>(io.owner);
  --st->busy;
  if (result < 0 && !st->error) st->error = result;
  if (result >= 0 && !io.write) std::memcpy(st->user + (io.offset - st->base), io.buffer, io.length);
  st->free.push_back(&io);
}
}  // namespace

SyncIo::SyncIo(Array& array) : array_(array) {
  io::RealBackend real = array.open_backend(unsigned(kDepth));
  note_ = std::move(real.fallback_note);
  ctx_ = std::make_unique<io::IoContext>(std::move(real.backend), "sync-io");
  port_ = std::make_unique<ArrayPort>(array, *ctx_);
}

SyncIo::~SyncIo() {
  ios_.clear();
  port_.reset();
  ctx_.reset();
}

Status SyncIo::check_range(const char* what, uint64_t offset, size_t len) const {
  const uint64_t size = array_.size_bytes();
  if (offset > size || len > size - offset)  // no wrap-around
    return make_error(Errc::invalid_argument, std::string(what) + " of " + std::to_string(len) +
                                                  " bytes at offset " + std::to_string(offset) +
                                                  " runs past the end of the array (" + std::to_string(size) +
                                                  " bytes)");
  return {};
}

Status SyncIo::run_aligned(bool write, uint64_t offset, uint8_t* buf, size_t len) {
  if (len == 0) return {};
  // Slots and bounce buffers of kPiece each, made on first use.
  const uint32_t piece = kPiece;
  if (ios_.empty()) {
    auto bounce = io::AlignedBuffer::allocate(size_t(piece) * kDepth);
    if (!bounce) return bounce.take_error();
    bounce_ = std::move(*bounce);
    ios_ = std::vector<ArrayIo>(kDepth);
    for (size_t i = 0; i < kDepth; ++i) {
      port_->prepare(ios_[i], piece);
      ios_[i].buffer = bounce_.data() + i * piece;
      ios_[i].done = piece_done;
    }
  }
  const uint64_t events_before = array_.events().last_seq();
  const size_t depth = std::min<size_t>(kDepth, (len + piece - 1) / piece);
  Pending st;
  st.user = buf;
  st.base = offset;
  for (size_t i = 0; i < depth; ++i) {
    ios_[i].owner = &st;
    st.free.push_back(&ios_[i]);
  }
  size_t pos = 0;
  while ((pos < len && !st.error) || st.busy > 0) {
    while (pos < len && !st.error && !st.free.empty()) {
      ArrayIo& io = *st.free.back();
      st.free.pop_back();
      const uint32_t n = uint32_t(std::min<size_t>(piece, len - pos));
      if (write) std::memcpy(io.buffer, buf + pos, n);
      io.write = write;
      io.offset = offset + pos;
      io.length = n;
      ++st.busy;
      port_->submit(io);
      pos += n;
    }
    ctx_->backend().submit();
    if (st.busy > 0) ctx_->run_once(1);
  }
  if (!st.error) return {};
  const std::string what = write ? "write" : "read";
  if (std::string members = member_errors(array_.events(), events_before); !members.empty())
    return make_error(Errc::io_error,
                      what + " failed: no member could " + (write ? "take" : "serve") + " it: " + members);
  return make_error(Errc::io_error, what + " failed: " + std::strerror(-st.error) +
                                        (st.error == -EIO ? " (no working copy of the data)" : ""));
}

Status SyncIo::read(uint64_t offset, void* buf, size_t len) {
  if (Status s = check_range("reading", offset, len); !s) return s;
  const uint64_t start = offset / kBlock * kBlock, end = (offset + len + kBlock - 1) / kBlock * kBlock;
  std::vector<uint8_t>& tmp = staging_;
  tmp.resize(end - start);
  if (Status s = run_aligned(false, start, tmp.data(), tmp.size()); !s) return s;
  std::memcpy(buf, tmp.data() + (offset - start), len);
  return {};
}

Status SyncIo::write(uint64_t offset, const void* buf, size_t len) {
  if (Status s = check_range("writing", offset, len); !s) return s;
  const uint64_t start = offset / kBlock * kBlock, end = (offset + len + kBlock - 1) / kBlock * kBlock;
  std::vector<uint8_t>& tmp = staging_;
  tmp.resize(end - start);
  // Unaligned edges: read the partial 4 KiB blocks first, then patch.
  if (start != offset || end != offset + len) {
    if (Status s = run_aligned(false, start, tmp.data(), kBlock); !s) return s;
    if (end - start > kBlock)
      if (Status s = run_aligned(false, end - kBlock, tmp.data() + tmp.size() - kBlock, kBlock); !s) return s;
  }
  std::memcpy(tmp.data() + (offset - start), buf, len);
  return run_aligned(true, start, tmp.data(), tmp.size());
}

}  // namespace rs::raid
