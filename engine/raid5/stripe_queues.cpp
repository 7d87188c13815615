#include "raid5/stripe_queues.hpp"

#include <algorithm>

namespace rs::raid5 {

const char* scheduling_name(Scheduling s) {
  return s == Scheduling::legacy ? "legacy" : "priority";
}

std::optional<Scheduling> scheduling_from_name(const std::string& name) {
  if (name == "legacy") return Scheduling::legacy;
  if (name == "priority") return Scheduling::priority;
  return std::nullopt;
}

const StripeQueues::Stripe* StripeQueues::stripe(uint64_t id) const {
  auto it = stripes_.find(id);
  return it == stripes_.end() ? nullptr : &it->second;
}

std::list<uint64_t>& StripeQueues::list(Stripe::List l) {
  return l == Stripe::List::handle ? handle_ : l == Stripe::List::hold ? hold_ : delayed_;
}

void StripeQueues::push(uint64_t id, Stripe::List l) {
  Stripe& s = at(id);
  if (s.list != Stripe::List::none) list(s.list).erase(s.pos);
  auto& to = list(l);
  s.pos = to.insert(to.end(), id);
  s.list = l;
}

uint64_t StripeQueues::pop(Stripe::List l) {
  auto& from = list(l);
  const uint64_t id = from.front();
  from.pop_front();
  at(id).list = Stripe::List::none;
  return id;
}

void StripeQueues::add_handle(uint64_t id) {
  push(id, Stripe::List::handle);
}

void StripeQueues::add_delayed(uint64_t id) {
  push(id, Stripe::List::delayed);
}

void StripeQueues::remove(uint64_t id) {
  auto it = stripes_.find(id);
  if (it == stripes_.end()) return;
  Stripe& s = it->second;
  if (s.list != Stripe::List::none) list(s.list).erase(s.pos);
  s.list = Stripe::List::none;
}

std::optional<uint64_t> StripeQueues::delayed_front() const {
  if (delayed_.empty()) return std::nullopt;
  return delayed_.front();
}

bool StripeQueues::activate_delayed(const std::function<bool(uint64_t)>& keep) {
  if (preread_active_ >= kIoThreshold) return false;  // md leaves the queue plugged
  bool any = false;
  for (auto it = delayed_.begin(); it != delayed_.end();) {
    const uint64_t id = *it++;  // push() below takes it off delayed_list
    if (keep && keep(id)) continue;
    any = true;
    ++released_total_;
    Stripe& s = at(id);
    if (!s.preread_active) {
      s.preread_active = true;
      ++preread_active_;
    }
    // Seed 004's one-line change: hold_list instead of handle_list.
    push(id, scheduling_ == Scheduling::priority ? Stripe::List::hold : Stripe::List::handle);
  }
  return any;
}

void StripeQueues::io_started(uint64_t id) {
  at(id).io_started = true;
}

void StripeQueues::full_write_started(uint64_t id) {
  Stripe& s = at(id);
  if (!s.full_write) {
    s.full_write = true;
    ++pending_full_writes_;
  }
}

void StripeQueues::write_completed(uint64_t id) {
  Stripe& s = at(id);
  if (s.full_write) {
    s.full_write = false;
    --pending_full_writes_;
  }
}

void StripeQueues::preread_done(uint64_t id) {
  Stripe& s = at(id);
  if (s.preread_active) {
    s.preread_active = false;
    --preread_active_;
  }
}

void StripeQueues::forget(uint64_t id) {
  auto it = stripes_.find(id);
  if (it == stripes_.end()) return;
  if (it->second.full_write) --pending_full_writes_;
  if (it->second.preread_active) --preread_active_;
  if (it->second.list != Stripe::List::none) list(it->second.list).erase(it->second.pos);
  stripes_.erase(it);
}

void StripeQueues::set_scheduling(Scheduling s) {
  // Back to legacy: nothing takes stripes off hold_list any more.
  if (s == Scheduling::legacy)
    while (!hold_.empty()) push(hold_.front(), Stripe::List::handle);
  scheduling_ = s;
}

std::optional<uint64_t> StripeQueues::next() {
  if (scheduling_ == Scheduling::priority) return get_priority_stripe();
  if (handle_.empty()) return std::nullopt;  // before seed 004: handle_list's head, nothing else
  return pop(Stripe::List::handle);
}

// Seed 004's __get_priority_stripe, rule by rule.
std::optional<uint64_t> StripeQueues::get_priority_stripe() {
  uint64_t id;
  if (!handle_.empty()) {
    id = handle_.front();
    if (hold_.empty()) {
      bypass_count_ = 0;  // v3: reset when hold_list is sampled empty
    } else if (!at(id).io_started) {
      // A stripe with I/O in flight does not count as a bypass.
      if (last_hold_ && hold_.front() == *last_hold_) {
        ++bypass_count_;
      } else {
        // v3: hold_list's head changed (promoted naturally): step back.
        last_hold_ = hold_.front();
        bypass_count_ = std::max(0, bypass_count_ - bypass_threshold_);
      }
    }
    pop(Stripe::List::handle);
  } else if (!hold_.empty() &&
             ((bypass_threshold_ && bypass_count_ > bypass_threshold_) || pending_full_writes_ == 0)) {
    id = pop(Stripe::List::hold);
    bypass_count_ = std::max(0, bypass_count_ - bypass_threshold_);
  } else {
    return std::nullopt;
  }
  return id;
}

}  // namespace rs::raid5
