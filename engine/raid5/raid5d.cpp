// The stripe cache's front half, as md's make_request / release_stripe /
// raid5d: bios attach their blocks to stripe heads, heads go onto the
// handle, hold or delayed list, and a raid5d pass takes them in the order
// the scheduling gives (stripe_queues.hpp) and hands them out in batches.
//
// Where it runs: a pass runs on whichever I/O context caused it (a bio's
// attach, a batch's end, an unplug), under mutex_; it hands each head to
// the context of the first bio attached to it (that bio's port carries
// the head's member I/O and holds the member table), running it at once
// when that is the current context (always, on the simulator's single
// one) and posting it otherwise. Nothing here blocks.
//
// Plugging (md's blk_plug_device / raid5_unplug_device): a head that needs
// pre-reads and is not pre-read active waits on delayed_list until an
// unplug releases the delayed heads (raid5_activate_delayed, only while
// fewer than IO_THRESHOLD heads have pre-reads active). md unplugs when a
// writer waits for a free head, and on its 3 ms timer or when a submitter
// waits for its I/O. Here a writer that waits unplugs at once; otherwise,
// once an unplug could release them (no head with pre-reads active: the
// first head delayed then, or the last pre-read head's parity computed,
// as md clears STRIPE_PREREAD_ACTIVE before a stripe's writes go out), one
// unplug is posted to a context with a bio waiting on a delayed head (the
// one that caused it when it has one, as md's per-task plug), where it
// runs when that submitter has queued what it had and turns its loop to
// wait: md's unplug on waiting, without a wall-clock timer, so the
// simulator's virtual time stays exact. Only one is pending at a time,
// and none is posted while it could release nothing: each one posted to
// another context can cost that context a wake-up.
// An unplug leaves alone a delayed head that a sequential writer is still
// filling (hold_stream_stripes, write_streams.hpp): the writer's next
// write completes the stripe, and a full stripe needs no pre-read.
#include <algorithm>

#include "raid/array_port.hpp"
#include "raid5/raid5_internal.hpp"

namespace rs::raid5 {

using raid::ArrayIo;

namespace {
// Runs `fn` now when `ctx` is the current context, else posts it there.
template <class Fn>
void run_on(io::IoContext& ctx, io::IoContext* here, Fn&& fn) {
  if (&ctx == here)
    fn();
  else
    ctx.post(std::forward<Fn>(fn));
}
}  // namespace

Raid5Personality::~Raid5Personality() = default;

void Raid5Personality::apply_tunables_locked() {
  queues_.set_bypass_threshold(bypass_threshold());
  if (queues_.scheduling() != scheduling()) queues_.set_scheduling(scheduling());
  if (cache_.capacity() != stripe_cache_size()) {
    cache_.set_capacity(stripe_cache_size());
    forget_evicted_locked();
  }
}

void Raid5Personality::forget_evicted_locked() {
  for (uint64_t column : cache_.evicted()) queues_.forget(column);
  cache_.evicted().clear();
}

size_t Raid5Personality::active_stripes() const {
  std::lock_guard lock(mutex_);
  return cache_.active();
}

void Raid5Personality::attach(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  io::IoContext* here = &io.port->context();
  bool ready = false;
  Batch* pass = nullptr;
  io::IoContext* unplug_at = nullptr;
  {
    std::lock_guard lock(mutex_);
    apply_tunables_locked();
    const uint64_t pass_id = ++touch_pass_;
    st.touched.clear();
    bool parked = false;
    while (st.attach_pos < st.n_pieces) {
      const Piece& p = st.pieces[st.attach_pos];
      StripeHead* h = cache_.get(p.column);
      if (!h) {  // every head is busy: md's get_active_stripe sleeps here
        parked = true;
        break;
      }
      if (!cache_.evicted().empty()) forget_evicted_locked();
      // A head first touched in this pass already lists this bio.
      if (h->touch_pass != pass_id && std::find(h->bios.begin(), h->bios.end(), &io) == h->bios.end()) {
        h->bios.push_back(&io);
        ++st.pending_heads;
      }
      if (io.write)
        h->towrite[size_t(p.member)] = p.buf;
      else
        h->toread.push_back({p.member, p.buf});
      if (h->touch_pass != pass_id) {
        h->touch_pass = pass_id;
        st.touched.push_back(h);
      }
      ++st.attach_pos;
    }
    for (StripeHead* h : st.touched) queue_head_locked(h, here);
    if (parked) {
      waiters_.push_back(&io);
      // Waiting for a stripe unplugs the queue. The pending unplug's bio
      // may be among those released (and its context gone before the
      // unplug runs): the next plug posts anew.
      if (queues_.activate_delayed()) unplug_pending_ = false;
    } else {
      st.attach_done = true;
      ready = st.direct_done && st.pending_heads == 0 && !st.completed;
      if (ready) {
        st.completed = true;
        write_done_locked(io);
      }
    }
    if (parked || !st.touched.empty()) pass = take_pass_locked(here);
    unplug_at = std::exchange(unplug_at_, nullptr);
  }
  if (unplug_at) post_unplug(unplug_at);
  if (ready) finish_bio(io);
  start_batches(pass, here);
}

// md's handle_stripe_dirtying count (write_plan.hpp), with every member
// readable: the batch plans with the members as they are.
bool Raid5Personality::needs_prereads(const StripeHead& h) const {
  const StripeGeometry::Parity pq = geo_.parity(h.column * kPageSectors / geo_.chunk_sectors);
  for (size_t i = 0; i < h.towrite.size(); ++i) towrite_scratch_[i] = h.towrite[i] != nullptr;
  return choose_write(pq.pd, towrite_scratch_, all_readable_, h.uptodate, column_unsynced(h.column), pq.qd)
             .prereads > 0;
}

// md: release_stripe puts a head with work on handle_list; handle_stripe
// finds it needs pre-reads it may not start yet (not STRIPE_PREREAD_ACTIVE)
// and sets STRIPE_DELAYED, which sends it to delayed_list. Reads are
// never delayed.
void Raid5Personality::queue_head_locked(StripeHead* h, io::IoContext* here) {
  if (h->in_round) return;  // queued again when its round ends
  const StripeQueues::Stripe* s = queues_.stripe(h->column);
  const bool was_delayed = s && s->list == StripeQueues::Stripe::List::delayed;
  queues_.remove(h->column);
  s = queues_.stripe(h->column);
  const bool preread_active = s && s->preread_active;
  if (!h->toread.empty() || preread_active || !needs_prereads(*h)) {
    queues_.add_handle(h->column);
    // It may hold the pending unplug's bio (see plug_locked).
    if (was_delayed) unplug_pending_ = false;
  } else {
    queues_.add_delayed(h->column);
    plug_locked(here);
  }
}

// The queue has delayed heads: make sure an unplug comes once it can
// release them. Until no head has pre-reads active it could not
// (activate_delayed): batch_prereads_over plugs when the last one has its
// parity. The
// unplug goes to a context with a bio waiting on a delayed head: `here`
// when it has one (the submitter, or the batch's context, is awake and
// turns its loop next; another context may be asleep), else the first
// delayed head's. Such a bio cannot complete before its head leaves
// delayed_list, so that context outlives the unplug; where a head leaves
// it otherwise (a parked writer's activate_delayed, a read moving it to
// handle_list) unplug_pending_ is cleared and the next plug posts anew.
void Raid5Personality::plug_locked(io::IoContext* here) {
  if (unplug_pending_ || queues_.delayed_len() == 0) return;
  if (queues_.preread_active_stripes() >= kIoThreshold) return;
  io::IoContext* at = unplug_context_locked(here);
  if (!at) return;
  unplug_pending_ = true;
  unplug_at_ = at;
}

io::IoContext* Raid5Personality::unplug_context_locked(io::IoContext* here) const {
  io::IoContext* first = nullptr;
  for (uint64_t column : queues_.delayed()) {
    const StripeHead* h = cache_.find(column);
    if (!h) continue;
    for (const ArrayIo* bio : h->bios) {
      io::IoContext* ctx = &bio->port->context();
      if (ctx == here) return here;
      if (!first) first = ctx;
      if (!here) return first;
    }
  }
  return first;
}

void Raid5Personality::post_unplug(io::IoContext* at) {
  at->post([this, at] { unplug(at); });
}

// Held only with the setting on and member I/O in flight somewhere: its
// end brings the next unplug (batch_finished plugs again), and with none
// in flight the stream's other writes are queued or parked, not on their
// way, so the head goes as md would release it.
bool Raid5Personality::stream_holds_locked(uint64_t column) const {
  if (!hold_stream_stripes() || in_round_ == 0) return false;
  const StripeHead* h = cache_.find(column);
  if (!h) return false;
  const std::optional<uint64_t> needed = first_unwritten_sector(*h);
  if (!needed) return false;
  const uint64_t stripe = column * kPageSectors / geo_.chunk_sectors;
  return std::any_of(h->bios.begin(), h->bios.end(), [&](const ArrayIo* bio) {
    return bio->write && streams_.holds(bio->port, stripe, *needed);
  });
}

// The array sector of the head's first data block, in array order, that no
// pending write covers: what a stream filling its stripe writes next there.
std::optional<uint64_t> Raid5Personality::first_unwritten_sector(const StripeHead& h) const {
  const uint64_t chunk = geo_.chunk_sectors;
  const uint64_t base = h.column * kPageSectors / chunk * row_sectors() + h.column * kPageSectors % chunk;
  for (int k = 0; k < geo_.data_disks(); ++k) {
    const uint64_t sector = base + uint64_t(k) * chunk;
    if (!h.towrite[size_t(geo_.compute_sector(sector).dd_idx)]) return sector;
  }
  return std::nullopt;
}

void Raid5Personality::write_done_locked(ArrayIo& io) {
  if (io.write) streams_.write_done(static_cast<Io&>(*io.priv).stream);
}

Raid5Personality::Batch* Raid5Personality::new_batch_locked(io::IoContext* context, ArrayIo* parent) {
  Batch* b = spare_batches_;
  if (b) {
    spare_batches_ = b->next;
  } else {
    batches_.push_back(std::make_unique<Batch>());
    b = batches_.back().get();
  }
  b->next = nullptr;
  b->context = context;
  b->parent = parent;
  b->heads.clear();
  b->prereads_active = false;
  return b;
}

Raid5Personality::Batch* Raid5Personality::take_pass_locked(io::IoContext* here) {
  apply_tunables_locked();
  const int dd = geo_.data_disks();
  Batch* first = nullptr;
  while (auto id = queues_.next()) {
    StripeHead* h = cache_.find(*id);
    if (!h || h->bios.empty()) continue;  // never: a queued head has work
    h->in_round = true;
    ++in_round_;
    h->writing.swap(h->towrite);
    h->reading.swap(h->toread);
    h->round_bios.swap(h->bios);
    const int written =
        int(std::count_if(h->writing.begin(), h->writing.end(), [](uint8_t* p) { return p; }));
    queues_.io_started(*id);
    if (written == dd) queues_.full_write_started(*id);
    io::IoContext* ctx = &h->round_bios.front()->port->context();
    Batch* b = first;
    while (b && b->context != ctx) b = b->next;
    if (!b) {
      b = new_batch_locked(ctx, h->round_bios.front());
      b->next = first;
      first = b;
    }
    b->heads.push_back(h);
    if (const auto* s = queues_.stripe(*id); s && s->preread_active) b->prereads_active = true;
  }
  // Nothing in flight and heads still plugged: an unplug must come (with
  // nothing in flight no head has pre-reads active, so it releases them
  // all); plug_locked posts one unless one is pending.
  if (in_round_ == 0 && queues_.delayed_len() > 0) plug_locked(here);
  return first;
}

// The other contexts' batches are posted first: such a context is often
// asleep (its bios all wait on heads), and its wake-up then overlaps this
// context's batch instead of following it. A pass has at most one batch
// per context.
void Raid5Personality::start_batches(Batch* b, io::IoContext* here) {
  Batch* mine = nullptr;
  while (b) {
    Batch* next = b->next;  // b may be finished (and reused) once posted
    if (b->context == here)
      mine = b;
    else
      b->context->post([this, b] { batch_start(*b); });
    b = next;
  }
  if (mine) batch_start(*mine);
}

void Raid5Personality::raid5d(io::IoContext* here) {
  Batch* pass;
  io::IoContext* unplug_at;
  {
    std::lock_guard lock(mutex_);
    pass = take_pass_locked(here);
    unplug_at = std::exchange(unplug_at_, nullptr);
  }
  if (unplug_at) post_unplug(unplug_at);
  start_batches(pass, here);
}

void Raid5Personality::unplug(io::IoContext* here) {
  Batch* pass;
  io::IoContext* unplug_at;
  {
    std::lock_guard lock(mutex_);
    unplug_pending_ = false;
    queues_.activate_delayed([this](uint64_t column) { return stream_holds_locked(column); });
    pass = take_pass_locked(here);
    unplug_at = std::exchange(unplug_at_, nullptr);
  }
  if (unplug_at) post_unplug(unplug_at);
  start_batches(pass, here);
}

// md clears STRIPE_PREREAD_ACTIVE in handle_stripe once the parity is
// computed (reconstruct_state drain_result), before the writes are issued,
// and wakes raid5d when fewer than IO_THRESHOLD are left: the next wave's
// pre-reads then overlap this wave's writes. Kept until the writes were
// done, each wave also waited for the last one's writes (about half of a
// wave of 4k random writes on the RAM target, docs/results/hot-path.md).
void Raid5Personality::batch_prereads_over(Batch& b) {
  if (!b.prereads_active) return;  // nothing to clear: no lock taken (full-stripe writes, reads)
  io::IoContext* unplug_at;
  {
    std::lock_guard lock(mutex_);
    for (StripeHead* h : b.heads) queues_.preread_done(h->column);
    plug_locked(b.context);
    unplug_at = std::exchange(unplug_at_, nullptr);
  }
  if (unplug_at) post_unplug(unplug_at);
}

// A batch's member I/O is done: its heads leave their round, their bios
// learn of it, waiting writers try again, and raid5d runs.
void Raid5Personality::batch_finished(Batch* b) {
  io::IoContext* here = b->context;
  const uint64_t epoch = b->parent->metadata_epoch;  // a member failed under its writes
  std::vector<ArrayIo*> done, wake;
  Batch* pass;
  io::IoContext* unplug_at;
  {
    std::lock_guard lock(mutex_);
    for (size_t hi = 0; hi < b->heads.size(); ++hi) {
      StripeHead* h = b->heads[hi];
      h->in_round = false;
      --in_round_;
      queues_.write_completed(h->column);  // its pre-reads ended before its writes began
      for (ArrayIo* bio : h->round_bios) {
        Io& st = static_cast<Io&>(*bio->priv);
        if (b->error[hi] && !st.head_error) st.head_error = -EIO;
        st.head_epoch = std::max(st.head_epoch, epoch);
        if (--st.pending_heads == 0 && st.attach_done && st.direct_done && !st.completed) {
          st.completed = true;
          write_done_locked(*bio);
          done.push_back(bio);
        }
      }
      h->round_bios.clear();
      h->reading.clear();
      std::fill(h->writing.begin(), h->writing.end(), nullptr);
      if (h->has_pending()) {
        queue_head_locked(h, here);
      } else {
        // Inactive, keeping its column and its stripe state (md keeps a
        // cached stripe's STRIPE_IO_STARTED until init_stripe).
        cache_.release(h);
        forget_evicted_locked();
      }
    }
    b->next = spare_batches_;  // b is not touched after this section
    spare_batches_ = b;
    // md re-plugs when it could not release the delayed heads; they go
    // once no head has pre-reads active (plug_locked waits for that).
    plug_locked(here);
    wake.swap(waiters_);
    pass = take_pass_locked(here);
    unplug_at = std::exchange(unplug_at_, nullptr);
  }
  if (unplug_at) post_unplug(unplug_at);
  for (ArrayIo* bio : done) run_on(bio->port->context(), here, [this, bio] { finish_bio(*bio); });
  for (ArrayIo* w : wake) run_on(w->port->context(), here, [this, w] { attach(*w); });
  start_batches(pass, here);
}

}  // namespace rs::raid5
