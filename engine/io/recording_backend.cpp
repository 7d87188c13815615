#include "io/recording_backend.hpp"

#include "io/write_observer.hpp"

namespace rs::io {

void RecordingBackend::queue(MemberIo& io) {
  MemberDevice* dev = io.write ? device(io.member) : nullptr;
  WriteObserver* observer = dev ? dev->observer() : nullptr;
  if (!observer) {
    inner_->queue(io);
    return;
  }
  // Recorded before the kernel sees it: from here on the bytes may land.
  const uint64_t id = observer->write_issued(dev->path(), io.offset, io.buffer, io.length, io.dsync);
  pending_[&io] = {observer, id, io.done, io.owner};
  io.done = &RecordingBackend::write_done;
  io.owner = this;
  inner_->queue(io);
}

void RecordingBackend::write_done(MemberIo& io, int result) {
  auto* self = static_cast<RecordingBackend*>(io.owner);
  auto it = self->pending_.find(&io);
  const Pending p = it->second;
  self->pending_.erase(it);
  io.done = p.done;
  io.owner = p.owner;
  p.observer->write_completed(p.id, result);
  io.done(io, result);
}

}  // namespace rs::io
