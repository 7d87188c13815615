#include "resources.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace rs::cli {

std::vector<std::string> resource_dirs(const std::string& kind) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("RAIDSCOPE_DATA_DIR")) dirs.push_back(std::string(env) + "/" + kind);
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    dirs.push_back((exe.parent_path() / ".." / "share" / "raidscope" / kind).lexically_normal().string());
  dirs.push_back(std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/" + kind);
  return dirs;
}

}  // namespace rs::cli
