// For test cases tagged [needs-uring] (CTest registers them with
// SKIP_RETURN_CODE 77): where io_uring is unusable here (an old kernel, the
// kernel.io_uring_disabled sysctl, a seccomp filter), the case exits 77 with
// the reason, so CTest shows it skipped, never passed or failed.
#pragma once
#include <cstdio>
#include <cstdlib>

#include "io/uring_backend.hpp"

namespace rs::test {

inline void require_uring() {
  if (auto probe = io::UringBackend::create({}, 8); !probe) {
    std::printf("skipped: %s\n", probe.error().message.c_str());
    std::fflush(stdout);
    std::_Exit(77);
  }
}

}  // namespace rs::test
