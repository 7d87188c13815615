// Member failures as every array command reports them, read from the
// array's event log (the events the GUI and telemetry show too) through its
// session, which keeps them once it has closed. Made once the array is
// open: an array that starts degraded is said once; each member that fails
// while the command runs is named on stderr with what failed and the error
// (past max_read_errors: with the count and the threshold), and each
// unreadable block rewritten from a good copy (or that could not be) with
// the member, the device sector and where the data came from, when the
// command ends, however it ends.
#pragma once
#include <memory>
#include <string>

#include "raid/array.hpp"
#include "session/array_session.hpp"

namespace rs::cli {

// Exit statuses besides 0 (done), 1 (failed), 2 (bad usage), 128+N (signal).
constexpr int kExitDegraded = 3;      // done, but a member failed meanwhile: the array is degraded
constexpr int kExitNoRedundancy = 4;  // check/repair: nothing left to compare with

class MemberFailures {
 public:
  // `expected`: a member the command fails on purpose (bench --fail-member),
  // reported but not counted as a failure. `say_degraded`: warn once when
  // the array is already degraded.
  MemberFailures(raid::Array& array, std::shared_ptr<session::ArraySession> session, bool say_degraded = true,
                 std::string expected = {});
  ~MemberFailures();  // prints what print() has not yet printed
  MemberFailures(const MemberFailures&) = delete;
  MemberFailures& operator=(const MemberFailures&) = delete;

  // Prints a line per member failed since the start (or the last call);
  // returns kExitDegraded when a member failed unexpectedly, else 0.
  int print();

 private:
  std::shared_ptr<session::ArraySession> session_;  // kept: print() may come after the close
  std::string expected_;
  uint64_t seen_;  // the event log's last sequence number already looked at
  bool failed_ = false;
};

}  // namespace rs::cli
