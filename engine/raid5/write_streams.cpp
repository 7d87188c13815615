#include "raid5/write_streams.hpp"

namespace rs::raid5 {

WriteStreams::Stream* WriteStreams::find(const void* submitter) {
  for (Stream& s : streams_)
    if (s.submitter == submitter) return &s;
  return nullptr;
}

const WriteStreams::Stream* WriteStreams::find(const void* submitter) const {
  for (const Stream& s : streams_)
    if (s.submitter == submitter) return &s;
  return nullptr;
}

// A submitter's own slot, else an idle one (a submitter gone or at rest:
// what it had is forgotten), else a new one while there is room.
WriteStreams::Stream* WriteStreams::slot_for(const void* submitter) {
  if (Stream* s = find(submitter)) return s;
  for (Stream& s : streams_)
    if (s.in_flight == 0) {
      s = Stream{};
      s.submitter = submitter;
      return &s;
    }
  if (streams_.size() == kMaxStreams) return nullptr;
  streams_.push_back(Stream{});
  streams_.back().submitter = submitter;
  return &streams_.back();
}

WriteStreams::Ticket WriteStreams::write_started(const void* submitter, uint64_t begin, uint64_t end) {
  Stream* s = slot_for(submitter);
  if (!s || end <= begin) return {};
  ++s->in_flight;
  s->continued = begin == s->next;
  s->next = end;
  const uint64_t tail = end % stripe_sectors_ ? (end - 1) / stripe_sectors_ : kNone;
  // A write that continues its stream and ends in the same stripe joins
  // the writes already there; otherwise the stream's tail starts anew
  // (its earlier writes are all in stripes it has left).
  if (!s->continued || tail != s->tail) {
    s->tail = tail;
    s->tail_generation = ++generation_;
    s->tail_writes = 0;
  }
  if (tail == kNone) return {submitter, 0};
  ++s->tail_writes;
  return {submitter, s->tail_generation};
}

void WriteStreams::write_done(const Ticket& ticket) {
  if (!ticket.submitter) return;
  Stream* s = find(ticket.submitter);
  if (!s || s->in_flight == 0) return;  // never: a counted write keeps its slot
  --s->in_flight;
  if (ticket.tail_generation != 0 && ticket.tail_generation == s->tail_generation) --s->tail_writes;
}

bool WriteStreams::holds(const void* submitter, uint64_t stripe) const {
  const Stream* s = find(submitter);
  return s && s->continued && s->tail == stripe && s->in_flight > s->tail_writes;
}

}  // namespace rs::raid5
