#include "workload/array_target_port.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "io/member_device.hpp"
#include "raid/array_port.hpp"

namespace rs::workload {

uint32_t array_unit_bytes(const raid::Array& array) {
  return array.io_unit_bytes();
}

std::string describe_array_unit(const raid::Array& array) {
  const raid::Array::IoUnit unit = array.io_unit();
  return std::to_string(unit.bytes) + " bytes (" + unit.reason + ")";
}

namespace {

// One job slot: the array I/O it becomes, and for I/O off the unit the
// span of whole units it covers, their bounce buffer and the lock on them.
struct Slot {
  enum class Step : uint8_t { pass, read_span, read_head, read_tail, write_span };
  raid::ArrayIo a;
  TargetIo* io = nullptr;
  class ArrayTargetPort* port = nullptr;
  UnitLocks::Request lock;
  Step step = Step::pass;
  bool bypassed = false;  // a whole-unit write that went past the lock
  uint64_t lo = 0, hi = 0;
  uint32_t max_span = 0;
  io::AlignedBuffer bounce;  // made at the slot's first I/O off the unit
};

class ArrayTargetPort final : public TargetPort {
 public:
  ArrayTargetPort(raid::Array& array, io::IoContext& context, UnitLocks& locks, uint32_t unit, bool direct)
      : port_(array, context), locks_(locks), bypass_(locks.add_port()), unit_(unit), direct_(direct) {}
  ~ArrayTargetPort() override { locks_.remove_port(bypass_); }

  void prepare(TargetIo& io, uint32_t max_length) override {
    auto s = std::make_shared<Slot>();
    s->io = &io;
    s->port = this;
    // The most whole units an I/O of max_length can touch.
    s->max_span = (max_length + unit_ - 1) / unit_ * unit_ + unit_;
    port_.prepare(s->a, s->max_span);
    s->a.owner = s.get();
    s->a.done = &ArrayTargetPort::on_done;
    s->lock.context = &port_.context();
    s->lock.owner = s.get();
    s->lock.granted = &ArrayTargetPort::on_granted;
    io.target_private = s;
  }

  void submit(TargetIo& io) override {
    Slot& s = *static_cast<Slot*>(io.target_private.get());
    s.a.job_id = io.job_id;
    if ((io.offset | io.length) % unit_ == 0) {
      s.step = Slot::Step::pass;
      if (io.write && !(s.bypassed = locks_.try_bypass(bypass_))) {
        s.lock.lo = io.offset;
        s.lock.hi = io.offset + io.length;
        s.lock.exclusive = false;
        if (!locks_.acquire(s.lock)) return;  // on_granted issues it
      }
      issue(s, io.write, io.offset, io.length, io.buffer);
      return;
    }
    if (direct_) {  // O_DIRECT's answer, on the context as any completion
      port_.context().post([&io] { io.done(io, -EINVAL); });
      return;
    }
    s.lo = io.offset / unit_ * unit_;
    s.hi = (io.offset + io.length + unit_ - 1) / unit_ * unit_;
    if (!s.bounce.data()) {
      auto bounce = io::AlignedBuffer::allocate(s.max_span);
      if (!bounce) {  // no memory for the span: answered on the context as any completion
        port_.context().post([&io] { io.done(io, -ENOMEM); });
        return;
      }
      s.bounce = std::move(*bounce);
    }
    if (!io.write) {
      s.step = Slot::Step::read_span;
      issue(s, false, s.lo, uint32_t(s.hi - s.lo), s.bounce.data());
      return;
    }
    s.lock.lo = s.lo;
    s.lock.hi = s.hi;
    s.lock.exclusive = true;
    if (locks_.acquire(s.lock)) read_ends(s);
  }

  io::IoContext& context() override { return port_.context(); }

 private:
  void issue(Slot& s, bool write, uint64_t offset, uint32_t length, void* buffer) {
    s.a.write = write;
    s.a.offset = offset;
    s.a.length = length;
    s.a.buffer = buffer;
    port_.submit(s.a);
  }

  bool head_partial(const Slot& s) const { return s.io->offset % unit_ != 0; }
  bool tail_partial(const Slot& s) const { return (s.io->offset + s.io->length) % unit_ != 0; }

  // Read-modify-write, holding the span: read the unit at each end the
  // write covers only in part (one read when those are the whole span).
  void read_ends(Slot& s) {
    const bool head = head_partial(s), tail = tail_partial(s);
    if (head && tail && s.hi - s.lo <= 2 * uint64_t(unit_)) {
      s.step = Slot::Step::read_tail;  // the whole span: nothing more to read after it
      issue(s, false, s.lo, uint32_t(s.hi - s.lo), s.bounce.data());
    } else if (head) {
      s.step = Slot::Step::read_head;
      issue(s, false, s.lo, unit_, s.bounce.data());
    } else {
      read_tail(s);
    }
  }

  void read_tail(Slot& s) {
    if (!tail_partial(s)) {
      write_span(s);
      return;
    }
    s.step = Slot::Step::read_tail;
    issue(s, false, s.hi - unit_, unit_, s.bounce.data() + (s.hi - unit_ - s.lo));
  }

  void write_span(Slot& s) {
    std::memcpy(s.bounce.data() + (s.io->offset - s.lo), s.io->buffer, s.io->length);
    s.step = Slot::Step::write_span;
    issue(s, true, s.lo, uint32_t(s.hi - s.lo), s.bounce.data());
  }

  void finish(Slot& s, int result) { s.io->done(*s.io, result); }

  static void on_granted(UnitLocks::Request& r) {
    Slot& s = *static_cast<Slot*>(r.owner);
    if (r.exclusive)
      s.port->read_ends(s);  // a read-modify-write
    else
      s.port->issue(s, true, s.io->offset, s.io->length, s.io->buffer);  // a whole-unit write
  }

  static void on_done(raid::ArrayIo& a, int result) {
    Slot& s = *static_cast<Slot*>(a.owner);
    ArrayTargetPort& p = *s.port;
    TargetIo& io = *s.io;
    io.served_by = a.served_by;
    switch (s.step) {
      case Slot::Step::pass:
        if (io.write) s.bypassed ? p.locks_.end_bypass(p.bypass_) : p.locks_.release(s.lock);
        p.finish(s, result);
        return;
      case Slot::Step::read_span:
        if (result >= 0) {
          std::memcpy(io.buffer, s.bounce.data() + (io.offset - s.lo), io.length);
          result = int(io.length);
        }
        p.finish(s, result);
        return;
      case Slot::Step::read_head:
      case Slot::Step::read_tail:
        if (result < 0) {
          p.locks_.release(s.lock);
          p.finish(s, result);
        } else if (s.step == Slot::Step::read_head) {
          p.read_tail(s);
        } else {
          p.write_span(s);
        }
        return;
      case Slot::Step::write_span:
        p.locks_.release(s.lock);
        p.finish(s, result >= 0 ? int(io.length) : result);
        return;
    }
  }

  raid::ArrayPort port_;
  UnitLocks& locks_;
  UnitLocks::Bypass& bypass_;
  const uint32_t unit_;
  const bool direct_;
};

}  // namespace

std::unique_ptr<TargetPort> make_array_target_port(raid::Array& array, io::IoContext& context,
                                                   UnitLocks& locks, uint32_t unit, bool direct) {
  return std::make_unique<ArrayTargetPort>(array, context, locks, unit, direct);
}

}  // namespace rs::workload
