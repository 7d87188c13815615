#include "discovery/sysfs_attr.hpp"

#include <sys/sysmacros.h>

#include <charconv>
#include <fstream>

namespace rs::discovery {

std::string read_attr(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
  return line;
}

std::optional<uint64_t> read_uint_attr(const std::filesystem::path& file) {
  const std::string text = read_attr(file);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::string major_minor(uint64_t rdev) {
  return std::to_string(major(rdev)) + ":" + std::to_string(minor(rdev));
}

std::optional<uint64_t> read_dev_attr(const std::filesystem::path& file) {
  const std::string text = read_attr(file);
  const auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  unsigned maj = 0, min = 0;
  const char* b = text.data();
  auto r1 = std::from_chars(b, b + colon, maj);
  auto r2 = std::from_chars(b + colon + 1, b + text.size(), min);
  if (r1.ec != std::errc() || r1.ptr != b + colon || r2.ec != std::errc() || r2.ptr != b + text.size())
    return std::nullopt;
  return makedev(maj, min);
}

}  // namespace rs::discovery
