#include "member_failures.hpp"

#include <cstdio>
#include <vector>

namespace rs::cli {

namespace {
std::string members_working(int working, int raid_disks) {
  return std::to_string(working) + " of " + std::to_string(raid_disks) + " members";
}
}  // namespace

MemberFailures::MemberFailures(raid::Array& array, std::shared_ptr<session::ArraySession> session,
                               bool say_degraded, std::string expected)
    : session_(std::move(session)), expected_(std::move(expected)), seen_(array.events().last_seq()) {
  if (say_degraded && array.degraded())
    std::fprintf(stderr, "raidscope-cli: warning: the array is degraded (%s working)%s\n",
                 members_working(array.working_members(), array.raid_disks()).c_str(),
                 array.redundant() ? "" : "; it has no redundancy left");
}

MemberFailures::~MemberFailures() {
  print();
}

int MemberFailures::print() {
  std::vector<telemetry::Event> failed;
  for (auto& e : session_->events_since(seen_)) {
    seen_ = e.seq;
    if (e.kind != "member") continue;
    if (e.value == "faulty") failed.push_back(std::move(e));
    // A block it could not read, rewritten from a good copy (the member
    // stays), or that could not be: said as it happened, in order.
    else if (e.value == "corrected" || e.value == "read error")
      std::fprintf(stderr, "raidscope-cli: member %s: %s\n", e.name.c_str(), e.message.c_str());
  }
  for (size_t i = 0; i < failed.size(); ++i) {
    const telemetry::Event& e = failed[i];
    if (e.name != expected_) failed_ = true;
    // The array's state once, after the last of them.
    std::string state;
    if (i + 1 == failed.size()) {
      const session::SessionStatus st = session_->status();  // as the close left it, once closed
      state = "; the array is degraded (" + members_working(st.working, st.raid_disks) + ")";
    }
    std::fprintf(stderr, "raidscope-cli: member %s failed: %s%s\n", e.name.c_str(), e.message.c_str(),
                 state.c_str());
  }
  return failed_ ? kExitDegraded : 0;
}

}  // namespace rs::cli
