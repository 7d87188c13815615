#include "open_array.hpp"

#include <cstdio>

#include "args.hpp"
#include "cli_support.hpp"
#include "resources.hpp"

namespace rs::cli {

OpenArray::~OpenArray() {
  client.detach();
  if (session) (void)session->close().wait();  // its error, if any, was the command's to report
}

OpenArray open_or_throw(const std::vector<std::string>& members, const raid::AssembleOptions& options,
                        const std::string& command) {
  if (members.empty()) throw UsageError("no members given");
  session::SessionOptions so;
  so.run_sampler = false;  // a one-shot command shows no telemetry (bench opens its own session)
  so.profile_dirs = resource_dirs("profiles");  // device_profile lists the disks it can emulate
  OpenArray a;
  a.session = check(session::ArraySession::open(members, options, so));
  a.client = check(a.session->attach(session::ClientKind::cli, command));
  for (auto& r : a->rejected())
    std::fprintf(stderr, "raidscope-cli: warning: %s not used: %s\n", r.path.c_str(), r.reason.c_str());
  warn_unprotected_members(a.array(), "assemble");
  return a;
}

void close_or_throw(OpenArray& a, const std::string& how_far) {
  a.client.detach();
  check(a.session->close().wait());
  if (int sig = interrupted_signal())
    throw Interrupted(
        sig, "interrupted" + (how_far.empty() ? "" : ": " + how_far) + "; the array was closed cleanly");
}

void task_outcome(OpenArray& a, const Status& s) {
  if (s.ok()) return;
  if (s.error().code == Errc::cancelled && interrupted_signal()) {
    a.client.detach();
    check(a.session->close().wait());
    throw Interrupted(interrupted_signal(), s.error().message);
  }
  raise(s.error());
}

}  // namespace rs::cli
