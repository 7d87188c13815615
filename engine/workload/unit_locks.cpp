#include "workload/unit_locks.hpp"

#include <algorithm>

namespace rs::workload {

namespace {
bool overlap(const UnitLocks::Request& a, const UnitLocks::Request& b) {
  return a.lo < b.hi && b.lo < a.hi && (a.exclusive || b.exclusive);
}
}  // namespace

UnitLocks::Bypass& UnitLocks::add_port() {
  std::lock_guard lock(mutex_);
  ports_.push_back(std::make_unique<Bypass>());
  return *ports_.back();
}

void UnitLocks::remove_port(Bypass& b) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(ports_.begin(), ports_.end(), [&](const auto& p) { return p.get() == &b; });
  if (it != ports_.end()) ports_.erase(it);
}

// Whether `r` must wait for a held request or for one of the first
// `waiters_before` queued ones (which came before it).
bool UnitLocks::conflicts(const Request& r, size_t waiters_before) const {
  for (const Request* h : held_)
    if (overlap(r, *h)) return true;
  for (size_t i = 0; i < waiters_before; ++i)
    if (overlap(r, *waiting_[i])) return true;
  return false;
}

// Every write that went past the lock before rmw_seen was raised has
// completed. Once true it stays true: a write that starts later sees the
// flag and takes the lock.
bool UnitLocks::drained_locked() {
  if (drained_) return true;
  for (const auto& p : ports_)
    if (p->in_flight.load(std::memory_order_seq_cst) != 0) return false;
  drained_ = true;
  return true;
}

bool UnitLocks::acquire(Request& r) {
  if (r.exclusive && !rmw_seen_.load(std::memory_order_relaxed))
    rmw_seen_.store(true, std::memory_order_seq_cst);
  std::lock_guard lock(mutex_);
  if (!conflicts(r, waiting_.size()) && (!r.exclusive || drained_locked())) {
    held_.push_back(&r);
    r.held = true;
    return true;
  }
  waiting_.push_back(&r);
  return false;
}

void UnitLocks::release(Request& r) {
  std::lock_guard lock(mutex_);
  auto it = std::find(held_.begin(), held_.end(), &r);
  if (it != held_.end()) {
    *it = held_.back();
    held_.pop_back();
  }
  r.held = false;
  if (!waiting_.empty()) grant_waiters_locked();
}

// Grants, in arrival order, every queued request that conflicts neither with
// a held one nor with one still queued before it; each grant runs on its
// requester's context.
void UnitLocks::grant_waiters_locked() {
  size_t keep = 0;
  for (size_t i = 0; i < waiting_.size(); ++i) {
    Request* w = waiting_[i];
    if (!conflicts(*w, keep) && (!w->exclusive || drained_locked())) {
      held_.push_back(w);
      w->held = true;
      w->context->post([w] { w->granted(*w); });
    } else {
      waiting_[keep++] = w;
    }
  }
  waiting_.resize(keep);
}

// A write that went past the lock has completed after rmw_seen was
// raised: a read-modify-write may be waiting for it.
void UnitLocks::recheck() {
  std::lock_guard lock(mutex_);
  if (!waiting_.empty()) grant_waiters_locked();
}

}  // namespace rs::workload
