// The session's life: opening (through the registry), clients, readers,
// and the close. Commands are in session_commands.cpp, emulated disks in
// session_profiles.cpp.
#include "session/array_session.hpp"

#include <algorithm>

#include "levels/levels.hpp"
#include "raid/member_table.hpp"
#include "session/command_impl.hpp"
#include "session/session_registry.hpp"

namespace rs::session {

// ---- opening ----

ArraySession::ArraySession(std::unique_ptr<raid::Array> array, std::vector<std::string> opened_with,
                           bool read_only, SessionOptions options)
    : array_(std::move(array)),
      opened_with_(std::move(opened_with)),
      read_only_(read_only),
      options_(std::move(options)),
      keep_open_(options_.keep_open) {}

Result<std::shared_ptr<ArraySession>> ArraySession::start(std::unique_ptr<raid::Array> array,
                                                          std::vector<std::string> opened_with,
                                                          bool read_only, SessionOptions options) {
  if (!(options.profile_scale > 0 && options.profile_scale <= 1))
    return make_error(Errc::invalid_argument, "the profile scale must be above 0 and at most 1");
  telemetry::SamplerOptions so;
  so.rate_hz = options.sample_hz;
  if (Status st = telemetry::Sampler::check(so); !st) return st.error();
  auto s = std::shared_ptr<ArraySession>(
      new ArraySession(std::move(array), std::move(opened_with), read_only, options));
  s->register_profile_tunable();
  // A task already running (md's resync after an unclean stop or a create)
  // is the session's like the ones it starts.
  for (const auto& t : s->array_->running_tasks()) s->adopt_task(t.kind, t.target, t.task);
  if (options.run_sampler)
    if (Status st = s->start_sampler(); !st) return st.error();
  return s;
}

Result<std::shared_ptr<ArraySession>> ArraySession::open(const std::vector<std::string>& members,
                                                         const raid::AssembleOptions& assemble,
                                                         SessionOptions options) {
  if (members.empty()) return make_error(Errc::invalid_argument, "no members given");
  auto& registry = SessionRegistry::instance();
  for (;;) {
    auto lock = registry.lock_opens();
    auto found = registry.find(members);
    if (!found) return found.error();
    if (found->closing) {
      lock.unlock();
      (void)found->closing->wait();  // its members are released once it has closed
      continue;
    }
    if (auto s = found->session) {
      if (s->read_only() && !(assemble.read_only || assemble.describe_only))
        return make_error(Errc::busy,
                          "the array of " + members.front() +
                              " is open read-only in this program; close it to open it for writing");
      return s;
    }
    auto arr = raid::Array::assemble(levels::builtin(), members, assemble);
    if (!arr) return arr.error();
    auto s = start(std::move(*arr), members, assemble.read_only || assemble.describe_only, std::move(options));
    if (s) registry.add(*s);
    return s;
  }
}

Result<std::shared_ptr<ArraySession>> ArraySession::create(const raid::CreateOptions& create,
                                                           const std::vector<std::string>& paths,
                                                           SessionOptions options) {
  auto& registry = SessionRegistry::instance();
  auto lock = registry.lock_opens();
  auto found = registry.find(paths);
  if (!found) return found.error();
  if (found->session || found->closing)
    return make_error(Errc::busy, "some of " + (paths.empty() ? std::string() : paths.front()) +
                                      "... belong to an array open in this program; close it first");
  auto arr = raid::Array::create(levels::builtin(), create, paths);
  if (!arr) return arr.error();
  auto s = start(std::move(*arr), paths, false, std::move(options));
  if (s) registry.add(*s);
  return s;
}

Result<std::shared_ptr<ArraySession>> ArraySession::adopt(std::unique_ptr<raid::Array> array,
                                                          SessionOptions options) {
  if (!array) return make_error(Errc::invalid_argument, "no array to adopt");
  std::vector<std::string> paths;
  for (const auto& m : array->table()->members) paths.push_back(m.name);
  const bool has_devices = std::any_of(array->table()->members.begin(), array->table()->members.end(),
                                       [](const raid::Member& m) { return m.dev != nullptr; });
  auto& registry = SessionRegistry::instance();
  auto lock = registry.lock_opens();
  if (has_devices) {
    auto found = registry.find(paths);
    if (!found) return found.error();
    if (found->session || found->closing)
      return make_error(Errc::busy, "its members belong to an array already open in this program");
  }
  auto s = start(std::move(array), std::move(paths), false, std::move(options));
  if (s && has_devices) registry.add(*s);
  return s;
}

std::vector<std::shared_ptr<ArraySession>> ArraySession::open_sessions() {
  return SessionRegistry::instance().open_sessions();
}

std::vector<discovery::Identity> ArraySession::member_identities() const {
  std::shared_lock life(life_);
  std::vector<discovery::Identity> ids;
  if (!array_) return ids;
  for (const auto& m : array_->table()->members)
    if (m.dev) ids.push_back(m.dev->identity());
  return ids;
}

// ---- telemetry ----

Status ArraySession::start_sampler() {
  telemetry::SamplerOptions so;
  so.rate_hz = options_.sample_hz;
  sampler_ = std::make_unique<telemetry::Sampler>(*array_, &array_->latencies(), &array_->events(), so);
  sampler_->add_listener([this](const telemetry::Sample& s) { dispatch(s); });
  return sampler_->start();
}

void ArraySession::dispatch(const telemetry::Sample& s) {
  std::lock_guard lock(listeners_mutex_);
  for (auto& [id, listener] : listeners_) listener(s);
}

ArraySession::Subscription ArraySession::subscribe(telemetry::Sampler::Listener listener) {
  std::lock_guard lock(listeners_mutex_);
  const uint64_t id = ++next_listener_;
  listeners_.emplace_back(id, std::move(listener));
  return Subscription(weak_from_this(), id);
}

void ArraySession::unsubscribe(uint64_t id) {
  std::lock_guard lock(listeners_mutex_);  // waits for a dispatch in progress
  listeners_.erase(
      std::remove_if(listeners_.begin(), listeners_.end(), [&](const auto& l) { return l.first == id; }),
      listeners_.end());
}

ArraySession::Subscription& ArraySession::Subscription::operator=(Subscription&& o) noexcept {
  if (this != &o) {
    reset();
    session_ = std::move(o.session_);
    id_ = o.id_;
  }
  return *this;
}

void ArraySession::Subscription::reset() {
  if (auto s = session_.lock()) s->unsubscribe(id_);
  session_.reset();
}

std::shared_ptr<const telemetry::Sample> ArraySession::latest_sample() const {
  return sampler_ ? sampler_->latest() : nullptr;
}

std::vector<std::shared_ptr<const telemetry::Sample>> ArraySession::samples_since(uint64_t seq) const {
  return sampler_ ? sampler_->since(seq) : std::vector<std::shared_ptr<const telemetry::Sample>>{};
}

std::shared_ptr<const telemetry::Sample> ArraySession::sample_now() {
  return sampler_ && is_open() ? sampler_->sample_on_thread() : nullptr;
}

// ---- clients ----

Result<Client> ArraySession::attach(ClientKind kind, std::string name, std::function<void()> on_stop) {
  auto record = std::make_shared<ClientRecord>();
  record->kind = kind;
  record->name = std::move(name);
  record->since_ns = telemetry::monotonic_now_ns();
  record->on_stop = std::move(on_stop);
  std::unique_lock<std::mutex> writers;
  if (kind != ClientKind::gui) writers = std::unique_lock(writers_mutex_);
  {
    std::lock_guard lock(clients_mutex_);
    // Checked under the lock the close waits on: a client either is in the
    // list the close asks to stop, or is refused.
    if (state_.load(std::memory_order_acquire) != State::open)
      return make_error(Errc::busy, "the array of " + (opened_with_.empty() ? "?" : opened_with_.front()) +
                                        " is closing: " + client_kind_name(kind) + " client '" +
                                        record->name + "' not attached");
    record->id = ++next_client_;
    clients_.push_back(record);
  }
  return Client(shared_from_this(), std::move(record));
}

void ArraySession::detach(const std::shared_ptr<ClientRecord>& record) {
  bool last = false, idle = false;
  {
    std::lock_guard lock(clients_mutex_);
    clients_.erase(std::remove(clients_.begin(), clients_.end(), record), clients_.end());
    last = clients_.empty();
    idle = record->kind != ClientKind::gui && only_viewers_locked();
  }
  clients_cv_.notify_all();
  if (last && !keep_open_.load(std::memory_order_relaxed) && is_open())
    (void)close();
  else if (idle && is_open())
    mark_clean_when_idle();
}

bool ArraySession::only_viewers_locked() const {
  return std::all_of(clients_.begin(), clients_.end(),
                     [](const auto& c) { return c->kind == ClientKind::gui; });
}

void ArraySession::mark_clean_when_idle() {
  (void)command<Status>("clean mark", [this](raid::Array& a) -> Status {
    std::lock_guard writers(writers_mutex_);  // no writer attaches meanwhile
    {
      std::lock_guard lock(clients_mutex_);
      if (!only_viewers_locked()) return {};
    }
    if (!a.running_tasks().empty()) return {};
    // No port is open and no task runs: nothing is in flight.
    return a.close();
  });
}

std::vector<ClientInfo> ArraySession::clients() const {
  std::lock_guard lock(clients_mutex_);
  std::vector<ClientInfo> out;
  for (const auto& c : clients_) out.push_back({c->id, c->kind, c->name, c->since_ns, c->io.snapshot()});
  return out;
}

// ---- readers ----

SessionStatus ArraySession::status() const {
  SessionStatus st;
  st.clients = clients();
  st.tasks = tasks();
  std::shared_lock life(life_);
  if (!array_) {
    SessionStatus closed = closed_as_;
    closed.tasks = std::move(st.tasks);
    return closed;
  }
  describe(*array_, st);
  st.open = is_open();
  return st;
}

void ArraySession::describe(const raid::Array& a, SessionStatus& st) const {
  st.level = a.level().name;
  st.raid_disks = a.raid_disks();
  st.layout = a.shape().layout;
  st.chunk_sectors = a.shape().chunk_sectors;
  st.working = a.working_members();
  st.size_bytes = a.size_bytes();
  st.state = a.state_text();
  st.read_only = read_only_;
  const raid::TableRef t = a.table();
  std::lock_guard profiles(profiles_mutex_);
  for (int i = 0; i < t->size(); ++i) {
    const raid::Member& m = (*t)[i];
    MemberInfo mi;
    mi.slot = i;
    mi.path = m.name;
    mi.state = m.present() ? raid::member_state_name(m.state) : "missing";
    mi.note = a.member_note(i);
    mi.profile = size_t(i) < profile_names_.size() ? profile_names_[size_t(i)] : "none";
    if (m.state == raid::MemberState::recovering)
      mi.rebuilt_bytes = a.runtime(i).recovery_offset.load(std::memory_order_relaxed) * raid::kSectorBytes;
    st.members.push_back(std::move(mi));
  }
}

std::vector<std::string> ArraySession::member_paths() const {
  std::shared_lock life(life_);
  std::vector<std::string> out;
  if (array_)
    for (const auto& m : array_->table()->members) out.push_back(m.dev ? m.name : "");
  return out;
}

std::vector<telemetry::TunableInfo> ArraySession::tunables() const {
  std::shared_lock life(life_);
  return array_ ? array_->tunables().list() : std::vector<telemetry::TunableInfo>{};
}

Result<std::string> ArraySession::tunable(const std::string& name) const {
  std::shared_lock life(life_);
  if (!array_) return closed_error("reading " + name);
  return array_->tunables().get(name);
}

Status ArraySession::validate_tunable(const std::string& name, const std::string& value) const {
  std::shared_lock life(life_);
  if (!array_) return closed_error("setting " + name);
  if (auto v = array_->tunables().validate(name, value); !v) return v.error();
  return {};
}

std::vector<telemetry::Event> ArraySession::events_since(uint64_t seq) const {
  std::shared_lock life(life_);
  if (array_) return array_->events().since(seq);
  std::vector<telemetry::Event> out;
  for (const auto& e : closed_events_)
    if (e.seq > seq) out.push_back(e);
  return out;
}

Error ArraySession::closed_error(const std::string& what) {
  return make_error(Errc::cancelled, what + ": the array's session is closed");
}

// ---- closing ----

Pending<Status> ArraySession::close() {
  State expected = State::open;
  if (state_.compare_exchange_strong(expected, State::closing, std::memory_order_acq_rel)) {
    std::weak_ptr<ArraySession> self = weak_from_this();
    // Refused only when the queue is stopping, which the destructor does
    // after its own close.
    (void)queue_.post([self, reply = closed_] {
      std::optional<Status> st;
      if (auto s = self.lock())
        st = s->close_now();  // the last reference may go here: then it closed in ~ArraySession
      if (st) reply.set(*st);
    });
  }
  return closed_;
}

void ArraySession::wait_for_clients() {
  std::vector<std::shared_ptr<ClientRecord>> asked;
  {
    std::lock_guard lock(clients_mutex_);
    asked = clients_;
  }
  for (auto& c : asked) {
    c->stop_requested.store(true, std::memory_order_release);
    if (c->on_stop) c->on_stop();
  }
  std::unique_lock lock(clients_mutex_);
  clients_cv_.wait(lock, [&] { return clients_.empty(); });
}

std::optional<Status> ArraySession::close_now() {
  if (closing_done_) return std::nullopt;
  closing_done_ = true;
  state_.store(State::closing, std::memory_order_release);
  wait_for_clients();
  if (sampler_) sampler_->stop();  // the tail sample reaches the listeners
  Status st = array_->close();     // tasks stop with their checkpoints; the clean mark
  join_watchers();
  {
    std::unique_lock life(life_);
    describe(*array_, closed_as_);  // what status() says from now on
    closed_events_ = array_->events().since(0);
    array_.reset();  // the members are released
  }
  SessionRegistry::instance().remove(this);
  state_.store(State::closed, std::memory_order_release);
  return st;
}

ArraySession::~ArraySession() {
  // No client is attached (each holds a reference) and no command runs
  // (each holds one while it runs), unless this is that command's end: the
  // close runs here, and queued work finds the session gone.
  const std::optional<Status> st = close_now();
  queue_.stop();
  if (st) closed_.set(*st);
}

}  // namespace rs::session
