// A fresh directory under /tmp for one test, removed with everything in it.
#pragma once
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

namespace rs::test {

struct TempDir {
  std::string path;
  explicit TempDir(const char* prefix = "rs-test") {
    std::string tmpl = std::string("/tmp/") + prefix + "-XXXXXX";
    const char* p = ::mkdtemp(tmpl.data());
    REQUIRE(p != nullptr);
    path = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
};

}  // namespace rs::test
