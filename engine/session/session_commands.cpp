// The session's commands (queued, run in order on its command thread) and
// its task list: every long operation it knows is a client of kind task
// while it runs, watched by a small thread that records how it ended.
#include <algorithm>

#include "session/array_session.hpp"
#include "session/command_impl.hpp"

namespace rs::session {

namespace {
constexpr size_t kFinishedTasksKept = 16;  // the history a status view shows
}

Pending<Status> ArraySession::set_tunable(std::string name, std::string value) {
  return command<Status>("set " + name,
                         [name, value](raid::Array& a) { return a.tunables().set(name, value); });
}

Pending<Status> ArraySession::set_tunable_number(std::string name, int64_t number) {
  return command<Status>("set " + name,
                         [name, number](raid::Array& a) { return a.tunables().set_number(name, number); });
}

Pending<Status> ArraySession::set_sample_rate(unsigned hz) {
  return command<Status>("telemetry rate", [this, hz](raid::Array&) -> Status {
    if (!sampler_)
      return make_error(Errc::unsupported, "this session does not sample (an array in virtual time)");
    return sampler_->set_rate(hz);
  });
}

Pending<Status> ArraySession::fail_member(int slot, std::string reason) {
  return command<Status>("fail member " + std::to_string(slot),
                         [slot, reason](raid::Array& a) { return a.fail_member(slot, reason); });
}

Pending<Status> ArraySession::remove_member(int slot) {
  return command<Status>("remove member " + std::to_string(slot),
                         [slot](raid::Array& a) { return a.remove_member(slot); });
}

Pending<Result<io::TaskHandle>> ArraySession::add_member(std::string path, raid::AddOptions options) {
  return command<Result<io::TaskHandle>>("add " + path, [this, path, options](raid::Array& a) {
    auto t = a.start_add(path, options);
    if (t) adopt_task("rebuild", path, *t);
    return t;
  });
}

Pending<Result<io::TaskHandle>> ArraySession::add_members(std::vector<std::string> paths,
                                                          raid::AddOptions options) {
  std::string names;
  for (const auto& p : paths) names += (names.empty() ? "" : ", ") + p;
  return command<Result<io::TaskHandle>>("add " + names, [this, paths, names, options](raid::Array& a) {
    auto t = a.start_add(paths, options);
    if (t) adopt_task("rebuild", names, *t);
    return t;
  });
}

Pending<Result<io::TaskHandle>> ArraySession::check(bool repair) {
  const char* kind = repair ? "repair" : "check";
  return command<Result<io::TaskHandle>>(kind, [this, repair, kind](raid::Array& a) {
    auto t = a.start_check(repair);
    if (t) adopt_task(kind, "", *t);
    return t;
  });
}

Pending<Status> ArraySession::flush() {
  return command<Status>("flush", [this](raid::Array& a) { return flush_members(a); });
}

Status ArraySession::flush_members(raid::Array& a) {
  // md's flush (REQ_PREFLUSH): every write that completed before it is on
  // every member's media (the array's own rule, which the bitmap's clearing
  // also relies on).
  return a.flush();
}

// ---- tasks ----

void ArraySession::adopt_task(const std::string& kind, const std::string& target, io::TaskHandle task) {
  auto client =
      attach(ClientKind::task, kind + (target.empty() ? "" : " " + target), [task] { task->cancel(); });
  std::lock_guard lock(tasks_mutex_);
  // The threads of tasks that ended are done or about to be.
  for (auto it = watchers_.begin(); it != watchers_.end();) {
    if (it->done->load(std::memory_order_acquire)) {
      it->thread.join();
      it = watchers_.erase(it);
    } else {
      ++it;
    }
  }
  size_t finished =
      size_t(std::count_if(tasks_.begin(), tasks_.end(), [](const TaskInfo& t) { return t.finished; }));
  for (auto it = tasks_.begin(); it != tasks_.end() && finished >= kFinishedTasksKept;)
    if (it->finished)
      it = tasks_.erase(it), --finished;
    else
      ++it;
  const uint64_t id = ++next_task_;
  tasks_.push_back({id, kind, target, task, false, {}, 0});
  // Closing: the close cancels the array's tasks itself.
  if (!client) return;
  auto done = std::make_shared<std::atomic<bool>>(false);
  watchers_.push_back({std::thread([this, id, task, done, c = std::move(*client)]() mutable {
                         watch_task(id, task, std::move(c));
                         done->store(true, std::memory_order_release);
                       }),
                       done});
}

void ArraySession::watch_task(uint64_t id, io::TaskHandle task, Client client) {
  Status st = task->wait();
  const uint64_t mismatches = client.array().mismatch_cnt();
  {
    std::lock_guard lock(tasks_mutex_);
    for (auto& t : tasks_)
      if (t.id == id) {
        t.finished = true;
        t.result = st;
        if (t.kind == "check" || t.kind == "repair") t.mismatches = mismatches;
      }
  }
  client.detach();  // may close the session (the last client), on this thread
}

void ArraySession::join_watchers() {
  std::vector<Watcher> watchers;
  {
    std::lock_guard lock(tasks_mutex_);
    watchers.swap(watchers_);
  }
  for (auto& w : watchers) {
    if (w.thread.get_id() == std::this_thread::get_id())
      w.thread.detach();  // the close runs at this watcher's end: it touches nothing after
    else
      w.thread.join();
  }
}

std::vector<TaskInfo> ArraySession::tasks() const {
  std::lock_guard lock(tasks_mutex_);
  return tasks_;
}

}  // namespace rs::session
