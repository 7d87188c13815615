// For test cases tagged [needs-tool] (CTest registers them with
// SKIP_RETURN_CODE 77): where a reference tool the case compares against
// (fio, mdadm, python3) is not installed, the case exits 77 so CTest shows
// it skipped, never passed. run.sh installs all of them.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace rs::test {

inline bool tool_installed(const char* path) {
  return ::access(path, X_OK) == 0;
}

inline void require_tool(const char* path, const char* what_is_skipped) {
  if (tool_installed(path)) return;
  std::printf("skipped: %s is not installed: %s\n", path, what_is_skipped);
  std::fflush(stdout);
  std::_Exit(77);
}

}  // namespace rs::test
