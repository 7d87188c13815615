// Polls a condition another thread makes true, with a deadline: a case whose
// condition never comes fails with its own message instead of hanging to the
// ctest timeout. The deadline is a bound for a broken build, never a timing
// assertion (a loaded host may take long; a correct one gets there).
#pragma once
#include <chrono>
#include <thread>

namespace rs::test {

// Whether `done` held within `limit` (checked every millisecond).
template <class Pred>
bool wait_until(Pred done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace rs::test
