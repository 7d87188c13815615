// The stripe-queue state of md's raid5 (raid5_conf's lists and counters)
// and the order raid5d takes stripes in, as seed 004 defines it
// (__get_priority_stripe) or as md did before it (legacy: the head of
// handle_list). Pure bookkeeping: no I/O, no threads (its owner serialises
// calls), so tests drive it with scripted stripe states.
//
// Lists, as md's: handle_list (stripes ready to handle), hold_list (stripes
// that need pre-reads and were released from delayed_list: seed 004's new
// list), delayed_list (pre-read stripes waiting for the plug), and the
// inactive count. Stripes are named by an id the owner chooses.
#pragma once
#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>

namespace rs::raid5 {

enum class Scheduling : uint8_t { legacy, priority };

// md's IO_THRESHOLD: delayed stripes are released only while fewer than
// this many stripes have pre-reads active.
inline constexpr int kIoThreshold = 1;
// md's BYPASS_THRESHOLD: preread_bypass_threshold's default.
inline constexpr int kDefaultBypassThreshold = 1;

class StripeQueues {
 public:
  struct Stripe {
    bool preread_active = false;  // STRIPE_PREREAD_ACTIVE: counted in preread_active_stripes
    // STRIPE_IO_STARTED: member I/O was issued for it. As in md, only
    // forget() (md's init_stripe) clears it: a stripe handled again, even
    // after a spell on the inactive list, never counts as a bypass.
    bool io_started = false;
    bool full_write = false;  // STRIPE_FULL_WRITE: counted in pending_full_writes
    enum class List : uint8_t { none, handle, hold, delayed } list = List::none;
    std::list<uint64_t>::iterator pos;  // where it is on `list`
  };

  // Switching to legacy moves hold_list's stripes to handle_list.
  void set_scheduling(Scheduling s);
  Scheduling scheduling() const { return scheduling_; }
  void set_bypass_threshold(int t) { bypass_threshold_ = t; }
  int bypass_threshold() const { return bypass_threshold_; }

  // ---- stripes entering the queues ----
  void add_handle(uint64_t id);   // ready: tail of handle_list
  void add_delayed(uint64_t id);  // needs pre-reads, held for the plug: tail of delayed_list
  // md's raid5_activate_delayed: when fewer than kIoThreshold stripes have
  // pre-reads active, every delayed stripe becomes pre-read active and
  // goes to hold_list (priority) or straight to handle_list (legacy).
  // Returns whether it released any. A stripe `keep` answers true for
  // stays on delayed_list, in its place (a stream is still filling it:
  // write_streams.hpp).
  bool activate_delayed(const std::function<bool(uint64_t)>& keep = {});

  // ---- stripe state the handler reports ----
  void io_started(uint64_t id);          // ops_run_io: set STRIPE_IO_STARTED
  void full_write_started(uint64_t id);  // all data blocks overwritten: STRIPE_FULL_WRITE
  void write_completed(uint64_t id);     // clears STRIPE_FULL_WRITE (pending_full_writes--)
  void preread_done(uint64_t id);        // clears STRIPE_PREREAD_ACTIVE
  // The stripe's head was given another column or dropped (md's
  // init_stripe zeroes its state): off every list, every flag cleared.
  void forget(uint64_t id);
  // md's get_active_stripe taking a queued stripe for a new bio
  // (list_del_init): off whichever list it is on, its state kept.
  void remove(uint64_t id);

  // The next stripe raid5d handles, taken off its list, or nothing.
  std::optional<uint64_t> next();

  // ---- what the telemetry shows ----
  size_t handle_len() const { return handle_.size(); }
  size_t hold_len() const { return hold_.size(); }
  size_t delayed_len() const { return delayed_.size(); }
  int bypass_count() const { return bypass_count_; }
  int pending_full_writes() const { return pending_full_writes_; }
  int preread_active_stripes() const { return preread_active_; }
  std::optional<uint64_t> delayed_front() const;
  // delayed_list, oldest first (the owner looks for a bio waiting there).
  const std::list<uint64_t>& delayed() const { return delayed_; }
  uint64_t released_total() const { return released_total_; }  // stripes activate_delayed released
  const Stripe* stripe(uint64_t id) const;

 private:
  std::optional<uint64_t> get_priority_stripe();
  Stripe& at(uint64_t id) { return stripes_[id]; }
  void push(uint64_t id, Stripe::List list);
  uint64_t pop(Stripe::List list);
  std::list<uint64_t>& list(Stripe::List l);

  Scheduling scheduling_ = Scheduling::priority;
  int bypass_threshold_ = kDefaultBypassThreshold;
  std::list<uint64_t> handle_, hold_, delayed_;
  std::unordered_map<uint64_t, Stripe> stripes_;
  int bypass_count_ = 0, pending_full_writes_ = 0, preread_active_ = 0;
  uint64_t released_total_ = 0;
  std::optional<uint64_t> last_hold_;  // hold_list's head when last sampled (md's last_hold)
};

const char* scheduling_name(Scheduling s);
std::optional<Scheduling> scheduling_from_name(const std::string& name);

}  // namespace rs::raid5
