#include "raid5/write_streams.hpp"

#include <algorithm>

namespace rs::raid5 {

unsigned WriteStreams::Stream::ending_in_stripe(uint64_t stripe) const {
  for (const auto& [s, n] : ending_in)
    if (s == stripe) return n;
  return 0;
}

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
  if (end <= begin) return {};
  Stream* s = slot_for(submitter);
  if (!s) return {};
  ++s->in_flight;
  s->continued = begin == s->next;
  s->next = end;
  s->last_sectors = end - begin;
  const uint64_t last_stripe = (end - 1) / stripe_sectors_;
  auto it = std::find_if(s->ending_in.begin(), s->ending_in.end(),
                         [&](const auto& e) { return e.first == last_stripe; });
  if (it == s->ending_in.end())
    s->ending_in.emplace_back(last_stripe, 1);
  else
    ++it->second;
  return {submitter, last_stripe};
}

void WriteStreams::write_done(const Ticket& ticket) {
  if (!ticket.submitter) return;
  Stream* s = find(ticket.submitter);
  if (!s || s->in_flight == 0) return;  // never: a counted write keeps its slot
  --s->in_flight;
  auto it = std::find_if(s->ending_in.begin(), s->ending_in.end(),
                         [&](const auto& e) { return e.first == ticket.last_stripe; });
  if (it != s->ending_in.end() && --it->second == 0) s->ending_in.erase(it);
}

bool WriteStreams::holds(const void* submitter, uint64_t stripe, uint64_t needed) const {
  const Stream* s = find(submitter);
  // Its tail: the stripe its last write ended inside (none when that write
  // ended at a stripe's end).
  if (!s || !s->continued || s->next % stripe_sectors_ == 0 || s->next / stripe_sectors_ != stripe ||
      needed < s->next)
    return false;
  const unsigned elsewhere = s->in_flight - s->ending_in_stripe(stripe);
  return elsewhere > 0 && needed - s->next < uint64_t(elsewhere) * s->last_sectors;
}

}  // namespace rs::raid5
