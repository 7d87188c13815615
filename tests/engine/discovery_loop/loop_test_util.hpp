// Helpers for the tests with real loop devices: shell commands, the skip
// (exit 77) for a machine without root or loop support, loop devices and
// mounts undone when they go out of scope.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <catch2/catch.hpp>

namespace rs::discovery::test {

// Runs a shell command; its stdout (trimmed) and whether it exited 0.
inline bool run(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return false;
  std::string text;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = ::pclose(p);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (out) *out = text;
  return status == 0;
}

// Ends the whole program with 77 (skipped). Only called before a case has
// made anything that would need undoing.
[[noreturn]] inline void skip(const std::string& why) {
  std::fprintf(stderr, "SKIPPED: %s\n", why.c_str());
  std::fflush(nullptr);
  std::_Exit(77);
}

inline void require_root_and_losetup() {
  if (::geteuid() != 0) skip("needs root to set up loop devices");
  if (!run("command -v losetup")) skip("losetup is not installed");
}

// Whether `text` has `part` in it (error messages).
inline bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A loop device over `file`, detached when this goes out of scope.
class Loop {
 public:
  explicit Loop(const std::string& file) {
    // Other engineers' tests take loop devices too: losetup -f can lose a
    // race for the free device it found, so try a few times.
    for (int attempt = 0; attempt < 5 && path_.empty(); ++attempt) {
      std::string out;
      if (run("losetup -f --show '" + file + "'", &out) && out.rfind("/dev/loop", 0) == 0) path_ = out;
    }
  }
  ~Loop() {
    if (!path_.empty()) run("losetup -d " + path_);
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  const std::string& path() const { return path_; }
  bool ok() const { return !path_.empty(); }

 private:
  std::string path_;
};

// The first loop device of a case: when none can be made, the case is
// skipped (nothing else exists yet).
inline std::unique_ptr<Loop> first_loop(const std::string& file) {
  auto loop = std::make_unique<Loop>(file);
  if (!loop->ok()) skip("losetup could not attach a loop device (no loop support here?)");
  return loop;
}

inline std::unique_ptr<Loop> another_loop(const std::string& file) {
  auto loop = std::make_unique<Loop>(file);
  REQUIRE(loop->ok());
  return loop;
}

// `device` mounted at `dir`, unmounted when this goes out of scope.
class Mount {
 public:
  Mount(const std::string& device, const std::string& dir) : dir_(dir) {
    mounted_ = run("mount '" + device + "' '" + dir + "'");
  }
  ~Mount() {
    if (mounted_ && !run("umount '" + dir_ + "'")) run("umount -l '" + dir_ + "'");
  }
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;
  bool ok() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

}  // namespace rs::discovery::test
