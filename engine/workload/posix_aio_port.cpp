#include "workload/posix_aio_port.hpp"

#include <algorithm>

namespace rs::workload {

PosixAioPort::PosixAioPort(std::unique_ptr<TargetPort> inner, size_t files)
    : inner_(std::move(inner)), files_(std::max<size_t>(files, 1)) {
  for (File& f : files_) f.port = this;
}

PosixAioPort::File& PosixAioPort::file_of(const TargetIo& io) {
  if (files_.size() == 1) return files_[0];  // one target: its offsets may pass 1 << kFileShift
  return files_[std::min<size_t>(io.offset >> kFileShift, files_.size() - 1)];
}

void PosixAioPort::submit(TargetIo& io) {
  File& file = file_of(io);
  if (file.running)
    file.waiting.push_back(&io);
  else
    start(file, io);
}

void PosixAioPort::start(File& file, TargetIo& io) {
  file.running = &io;
  file.done = io.done;
  file.owner = io.owner;
  io.done = &PosixAioPort::on_done;
  io.owner = &file;
  inner_->submit(io);
}

void PosixAioPort::on_done(TargetIo& io, int result) {
  File& file = *static_cast<File*>(io.owner);
  io.done = file.done;
  io.owner = file.owner;
  // The file stays busy while the job handles the completion, so an I/O
  // the job issues from it queues behind those already waiting (glibc's
  // order: first queued, first served).
  io.done(io, result);
  file.running = nullptr;
  if (file.waiting.empty()) return;
  TargetIo* next = file.waiting.front();
  file.waiting.pop_front();
  file.port->start(file, *next);
  // The job submits its batch when it issues; this I/O was issued earlier,
  // so it goes to the kernel now rather than at the next reap.
  file.port->backend().submit();
}

}  // namespace rs::workload
