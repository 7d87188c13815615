// An open array: one engine object that owns the assembled (or created, or
// simulated) raid::Array with its members, personality, tunables, tasks and
// event log, runs the telemetry sampler for as long as it is open, and runs
// management commands in order on a command thread of its own. Everything
// else is a client that attaches and detaches without closing it: a bench
// run, the GUI, a long task, an export's connection, a CLI command.
//
// One owner per array per process: open() looks the members up (by
// identity: a loop device and its file are one member) among the sessions
// already open in this process and returns that session, or refuses a
// member set that overlaps an open array's without being exactly it.
//
// Threads. open/create/adopt may block on I/O (superblocks): call them off a
// GUI thread. Commands return a Pending reply at once and run on the
// command thread. Readers (status, tunables, events, samples) may be called
// from any thread at any time, also after close (they then report a closed
// session). Array I/O goes through a Client's array() on the client's own
// I/O context. Nothing here throws.
//
// Closing (close(), the last client leaving, or the last reference
// dropped): new clients and commands are refused, every client is asked to
// stop (its on_stop), and once all have detached the sampler takes its tail
// sample and stops, the array's tasks stop with their checkpoints, the
// clean mark is written (raid::Array::close) and the members are released.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "base/tunable_key.hpp"
#include "discovery/identity.hpp"
#include "io/device_profile.hpp"
#include "io/task.hpp"
#include "raid/array.hpp"
#include "session/client.hpp"
#include "session/command_queue.hpp"
#include "session/pending.hpp"
#include "telemetry/sampler.hpp"
#include "telemetry/tunables.hpp"

namespace rs::session {

// The session's own per-member tunable: the disk a member emulates (a
// profile's name, or "none"). Address it as kDeviceProfile.at(member).
inline constexpr TunableKey<std::string> kDeviceProfile{"device_profile"};

struct SessionOptions {
  unsigned sample_hz = 10;                // the sampler's rate, 1..50 (set_sample_rate changes it)
  bool run_sampler = true;                // false for arrays in virtual time (the simulator samples itself)
  std::vector<std::string> profile_dirs;  // where the device_profile tunable finds emulated disks
  double profile_scale = 1.0;             // every emulated disk slowed by this factor, 0 < f <= 1
  bool keep_open = false;                 // stay open when the last client detaches
};

struct MemberInfo {
  int slot = 0;
  std::string path;            // "" when missing
  std::string state;           // md's words: "active sync", "recovering", "faulty", "missing"
  std::string note;            // why it is missing or faulty
  std::string profile;         // the disk it emulates ("none": the real device)
  uint64_t rebuilt_bytes = 0;  // recovering: how far the rebuild got
};

struct TaskInfo {
  uint64_t id = 0;
  std::string kind;     // "resync", "rebuild", "check", "repair"
  std::string target;   // the member being rebuilt
  io::TaskHandle task;  // progress, cancel, wait
  bool finished = false;
  Status result;            // once finished
  uint64_t mismatches = 0;  // check and repair, once finished (md's mismatch_cnt)
};

// The array as it is now, for a status view (any thread).
struct SessionStatus {
  bool open = false;
  std::string level;  // "raid1"
  int raid_disks = 0, working = 0;
  uint32_t layout = 0, chunk_sectors = 0;  // md's layout word and chunk (what a stripe map needs)
  uint64_t size_bytes = 0;
  std::string state;  // "clean", "active, degraded", "clean, resyncing (12%)", ...
  bool read_only = false;
  std::vector<MemberInfo> members;
  std::vector<TaskInfo> tasks;
  std::vector<ClientInfo> clients;
};

class ArraySession : public std::enable_shared_from_this<ArraySession> {
 public:
  // ---- opening (one session per array per process) ----
  // The open session of exactly these members, or the array assembled from
  // them. Errc::busy when some of them belong to an array open in this
  // process with other members (or read-only while writes are asked).
  // `options` apply when this call opens the array: an open session keeps
  // its owner's (its rate, its profile folders).
  static Result<std::shared_ptr<ArraySession>> open(const std::vector<std::string>& members,
                                                    const raid::AssembleOptions& assemble = {},
                                                    SessionOptions options = {});
  // Creates a new array (raid::Array::create's checks and rules) and opens it.
  static Result<std::shared_ptr<ArraySession>> create(const raid::CreateOptions& create,
                                                      const std::vector<std::string>& paths,
                                                      SessionOptions options = {});
  // Takes an array made elsewhere (a simulated one; a test's).
  static Result<std::shared_ptr<ArraySession>> adopt(std::unique_ptr<raid::Array> array,
                                                     SessionOptions options = {});
  // The sessions open in this process (an Arrays page lists them).
  static std::vector<std::shared_ptr<ArraySession>> open_sessions();
  // Closes if still open (see close()); must not run on the command thread
  // while clients wait there.
  ~ArraySession();
  ArraySession(const ArraySession&) = delete;
  ArraySession& operator=(const ArraySession&) = delete;

  // ---- clients ----
  // Attaches a client; `on_stop` (optional, any thread, must not block) is
  // called when the session starts closing. Errc::busy once closing.
  Result<Client> attach(ClientKind kind, std::string name, std::function<void()> on_stop = {});
  std::vector<ClientInfo> clients() const;
  // Whether the session stays open when its last client detaches.
  void keep_open(bool keep) { keep_open_.store(keep, std::memory_order_relaxed); }

  // ---- what it is (any thread) ----
  bool is_open() const { return state_.load(std::memory_order_acquire) == State::open; }
  bool read_only() const { return read_only_; }
  const std::vector<std::string>& opened_with() const { return opened_with_; }  // the paths given
  // Once closed: the array as the close left it (open false, no clients).
  SessionStatus status() const;
  std::vector<TaskInfo> tasks() const;
  // The member paths by slot now ("" where missing): what reopening takes.
  std::vector<std::string> member_paths() const;

  // ---- tunables, events, telemetry (any thread; once closed: no
  // tunables or samples, the events as the close left them) ----
  std::vector<telemetry::TunableInfo> tunables() const;
  Result<std::string> tunable(const std::string& name) const;
  // What set_tunable would refuse, without setting (a usage error up front).
  Status validate_tunable(const std::string& name, const std::string& value) const;
  std::vector<telemetry::Event> events_since(uint64_t seq) const;
  std::shared_ptr<const telemetry::Sample> latest_sample() const;
  std::vector<std::shared_ptr<const telemetry::Sample>> samples_since(uint64_t seq) const;
  uint64_t sampler_start_ns() const { return sampler_ ? sampler_->start_ns() : 0; }
  unsigned sample_rate() const { return sampler_ ? sampler_->rate_hz() : 0; }
  // A sample now, between the periodic ones (the tail of a run); null when
  // the sampler does not run.
  std::shared_ptr<const telemetry::Sample> sample_now();

  // Every sample, on the sampler thread, until the Subscription goes (its
  // destructor waits for a call in progress). The listener must not block
  // or call back into the session's commands.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(Subscription&& o) noexcept : session_(std::move(o.session_)), id_(o.id_) {}
    Subscription& operator=(Subscription&& o) noexcept;
    ~Subscription() { reset(); }
    void reset();

   private:
    friend class ArraySession;
    Subscription(std::weak_ptr<ArraySession> s, uint64_t id) : session_(std::move(s)), id_(id) {}
    std::weak_ptr<ArraySession> session_;
    uint64_t id_ = 0;
  };
  Subscription subscribe(telemetry::Sampler::Listener listener);

  // ---- commands: queued, run in order on the command thread ----
  // Errc::cancelled (named) once the session is closing.
  Pending<Status> set_tunable(std::string name, std::string value);
  // Typed (base/tunable_key.hpp): the value travels as its type and the
  // owner's setter gets it with no text parsed (balance::kReadPolicy takes
  // a balance::PolicyId). Refusals as set_tunable's.
  template <class T>
  Pending<Status> set_tunable(TunableKey<T> key, T value, int member = -1) {
    return set_tunable_number(member < 0 ? std::string(key.name) : key.at(member),
                              static_cast<int64_t>(value));
  }
  Pending<Status> set_tunable_number(std::string name, int64_t number);
  // The disk member `slot` emulates (-1: every present member): a profile
  // by name from the profile folders, or "none" for the real device.
  Pending<Status> set_member_profile(int slot, std::string profile);
  // The same with a profile already loaded (bench --member-profile).
  Pending<Status> set_member_profile(int slot, io::DeviceProfile profile);
  // Slows every emulated member by `scale` (0 < f <= 1), at once.
  Pending<Status> set_profile_scale(double scale);
  Pending<Status> set_sample_rate(unsigned hz);
  // mdadm --fail: recorded in the superblocks before the reply.
  Pending<Status> fail_member(int slot, std::string reason);
  // mdadm --remove: a faulty member taken out of its slot (Array::remove_member).
  Pending<Status> remove_member(int slot);
  // Puts `path` in the first missing or faulty slot and rebuilds onto it;
  // the reply is the rebuild task (a client of kind task while it runs).
  Pending<Result<io::TaskHandle>> add_member(std::string path, raid::AddOptions options = {});
  // Several at once, rebuilt by one task in one pass (RAID6's two).
  Pending<Result<io::TaskHandle>> add_members(std::vector<std::string> paths, raid::AddOptions options = {});
  // check (repair: rewrite what differs) as a task; TaskInfo::mismatches
  // holds md's count once it finished.
  Pending<Result<io::TaskHandle>> check(bool repair);
  // Makes every write that completed before it durable on every member
  // (their caches flushed).
  Pending<Status> flush();
  // Closes (see the top of this file); the reply comes once it is closed.
  // Every call gets the same reply. Not from the command thread.
  Pending<Status> close();
  // The same reply as close(), without asking for the close: for whoever
  // lets the session go and must see it finish (a program before it exits).
  Pending<Status> when_closed() const { return closed_; }

 private:
  enum class State { open, closing, closed };
  friend class Client;
  friend class SessionRegistry;
  ArraySession(std::unique_ptr<raid::Array> array, std::vector<std::string> opened_with, bool read_only,
               SessionOptions options);
  static Result<std::shared_ptr<ArraySession>> start(std::unique_ptr<raid::Array> array,
                                                     std::vector<std::string> opened_with, bool read_only,
                                                     SessionOptions options);
  // What the registry compares: the identities of the member devices now.
  std::vector<discovery::Identity> member_identities() const;
  Status start_sampler();
  void dispatch(const telemetry::Sample& s);
  void unsubscribe(uint64_t id);
  void detach(const std::shared_ptr<ClientRecord>& record);
  // md's clean mark once nothing can write: no client but viewers (gui
  // clients never submit array I/O) and no task. The array takes writes
  // again after it (the next write marks it active).
  bool only_viewers_locked() const;
  void mark_clean_when_idle();
  // Queues `body` (run with the array) and answers its reply.
  template <class R>
  Pending<R> command(const std::string& what, std::function<R(raid::Array&)> body);
  static Error closed_error(const std::string& what);
  // The close itself, on the command thread or in the destructor; nullopt
  // when it was closed already. The caller answers closed_ with it, after
  // letting go of the session (whoever waits may then end the process).
  std::optional<Status> close_now();
  void wait_for_clients();
  // Tasks: recorded, their client attached, watched until they finish.
  void adopt_task(const std::string& kind, const std::string& target, io::TaskHandle task);
  void watch_task(uint64_t id, io::TaskHandle task, Client client);
  void join_watchers();
  // Emulated disks (session_profiles.cpp).
  void register_profile_tunable();
  Status apply_profile(raid::Array& array, int slot, std::optional<io::DeviceProfile> profile,
                       const std::string& label);
  Status flush_members(raid::Array& array);
  // The array's part of status() (life_ held).
  void describe(const raid::Array& a, SessionStatus& st) const;

  // The array and everything read through it; null once closed. Readers
  // hold life_ shared, the close holds it exclusive to release the array.
  mutable std::shared_mutex life_;
  std::unique_ptr<raid::Array> array_;
  SessionStatus closed_as_;                      // under life_: the array's status when it was released
  std::vector<telemetry::Event> closed_events_;  // under life_: its event log then
  const std::vector<std::string> opened_with_;
  const bool read_only_;
  SessionOptions options_;
  std::atomic<State> state_{State::open};
  std::atomic<bool> keep_open_{false};
  Pending<Status> closed_;
  bool closing_done_ = false;  // the command thread's, or the destructor's (never both at once)
  std::unique_ptr<telemetry::Sampler> sampler_;

  mutable std::mutex listeners_mutex_;  // held while listeners run: unsubscribe waits for them
  std::vector<std::pair<uint64_t, telemetry::Sampler::Listener>> listeners_;
  uint64_t next_listener_ = 0;

  // Held by the idle clean mark and by attaching a client that may write,
  // so no write can start while the clean mark is written.
  std::mutex writers_mutex_;
  mutable std::mutex clients_mutex_;
  std::condition_variable clients_cv_;
  std::vector<std::shared_ptr<ClientRecord>> clients_;
  uint64_t next_client_ = 0;

  mutable std::mutex tasks_mutex_;
  std::vector<TaskInfo> tasks_;
  struct Watcher {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;  // its task ended and it let go of the session
  };
  std::vector<Watcher> watchers_;
  uint64_t next_task_ = 0;

  mutable std::mutex profiles_mutex_;  // the device_profile tunable's state
  std::vector<std::string> profile_names_;
  std::vector<std::optional<io::DeviceProfile>> profiles_;  // unscaled, per slot

  CommandQueue queue_{"rs-session"};  // last: stopped before the rest goes
};

}  // namespace rs::session
