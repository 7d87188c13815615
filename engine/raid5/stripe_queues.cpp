#include "raid5/stripe_queues.hpp"

#include <algorithm>

namespace rs::raid5 {

const char* scheduling_name(Scheduling s) { return s == Scheduling::legacy ? "legacy" : "priority"; }

std::optional<Scheduling> scheduling_from_name(const std::string& name) {
  if (name == "legacy") return Scheduling::legacy;
  if (name == "priority") return Scheduling::priority;
  return std::nullopt;
}

const StripeQueues::Stripe* StripeQueues::stripe(uint64_t id) const {
  auto it = stripes_.find(id);
  return it == stripes_.end() ? nullptr : &it->second;
}

void StripeQueues::add_handle(uint64_t id) {
  at(id);
  handle_.push_back(id);
}

void StripeQueues::add_delayed(uint64_t id) {
  at(id).delayed = true;
  delayed_.push_back(id);
}

void StripeQueues::activate_delayed() {
  if (preread_active_ >= kIoThreshold) return;  // md leaves the queue plugged
  while (!delayed_.empty()) {
    const uint64_t id = delayed_.front();
    delayed_.pop_front();
    Stripe& s = at(id);
    s.delayed = false;
    if (!s.preread_active) {
      s.preread_active = true;
      ++preread_active_;
    }
    // Seed 004's one-line change: hold_list instead of handle_list.
    (scheduling_ == Scheduling::priority ? hold_ : handle_).push_back(id);
  }
}

void StripeQueues::io_started(uint64_t id) { at(id).io_started = true; }

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
  for (auto* list : {&handle_, &hold_, &delayed_}) list->erase(std::remove(list->begin(), list->end(), id), list->end());
  stripes_.erase(it);
}

std::optional<uint64_t> StripeQueues::next() {
  if (scheduling_ == Scheduling::priority) return get_priority_stripe();
  if (handle_.empty()) return std::nullopt;  // before seed 004: handle_list's head, nothing else
  const uint64_t id = handle_.front();
  handle_.pop_front();
  return id;
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
    handle_.pop_front();
  } else if (!hold_.empty() &&
             ((bypass_threshold_ && bypass_count_ > bypass_threshold_) || pending_full_writes_ == 0)) {
    id = hold_.front();
    hold_.pop_front();
    bypass_count_ = std::max(0, bypass_count_ - bypass_threshold_);
  } else {
    return std::nullopt;
  }
  return id;
}

}  // namespace rs::raid5
