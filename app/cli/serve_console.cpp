#include "serve_console.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <thread>

namespace rs::cli {

std::string serve_human(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

bool ServeConsole::poll(int timeout_ms) {
  if (eof_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return true;
  }
  pollfd p{0, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return true;
  char buf[4096];
  const ssize_t n = ::read(0, buf, sizeof buf);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) {
    eof_ = true;  // no more commands; serving goes on
    return true;
  }
  pending_.append(buf, size_t(n));
  for (size_t nl; (nl = pending_.find('\n')) != std::string::npos;) {
    const std::string line = pending_.substr(0, nl);
    pending_.erase(0, nl + 1);
    if (!run(line)) return false;
  }
  return true;
}

bool ServeConsole::run(const std::string& line) {
  const size_t sp = line.find(' ');
  const std::string cmd = line.substr(0, sp);
  std::string arg = sp == std::string::npos ? "" : line.substr(sp + 1);
  while (!arg.empty() && (arg.back() == ' ' || arg.back() == '\r')) arg.pop_back();
  if (cmd.empty()) return true;
  if (cmd == "stop") return false;
  if (cmd == "status") {
    status();
    return true;
  }
  if (cmd == "fail" && !arg.empty()) {
    int slot = -1;
    for (const auto& m : session_->status().members)
      if (m.path == arg) slot = m.slot;
    if (slot < 0) {
      std::fprintf(stderr, "raidscope-cli serve: %s is not a member of the array\n", arg.c_str());
      return true;
    }
    const Status s = session_->fail_member(slot, "failed by the admin (serve's fail command)").wait();
    if (!s)
      std::fprintf(stderr, "raidscope-cli serve: fail %s refused: %s\n", arg.c_str(),
                   s.error().message.c_str());
    return true;
  }
  if (cmd == "add" && !arg.empty()) {
    auto task = session_->add_member(arg).wait();
    if (!task)
      std::fprintf(stderr, "raidscope-cli serve: add %s refused: %s\n", arg.c_str(),
                   task.error().message.c_str());
    else
      std::printf("rebuilding onto %s while serving (the event lines say when it is done)\n", arg.c_str());
    std::fflush(stdout);
    return true;
  }
  std::fprintf(stderr, "raidscope-cli serve: commands: fail PATH, add PATH, status, stop (not '%s')\n",
               line.c_str());
  return true;
}

void ServeConsole::status() const {
  const auto st = session_->status();
  std::printf("array: %s, %d of %d members working, %s\n", st.level.c_str(), st.working, st.raid_disks,
              st.state.c_str());
  for (const auto& m : st.members)
    std::printf("  member %d: %s %s\n", m.slot, m.path.empty() ? "-" : m.path.c_str(), m.state.c_str());
  for (const auto& t : st.tasks)
    if (!t.finished) std::printf("  task: %s %s\n", t.kind.c_str(), t.target.c_str());
  for (const auto& c : st.clients)
    if (c.kind == session::ClientKind::export_)
      std::printf("  client %s: %llu reads (%s), %llu writes (%s)\n", c.name.c_str(),
                  static_cast<unsigned long long>(c.io.reads), serve_human(c.io.read_bytes).c_str(),
                  static_cast<unsigned long long>(c.io.writes), serve_human(c.io.write_bytes).c_str());
  std::fflush(stdout);
}

}  // namespace rs::cli
