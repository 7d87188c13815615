#include "workload/verify_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace rs::workload {

std::string verify_dump_name(std::string_view file_path, uint64_t offset, std::string_view type) {
  const size_t slash = file_path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? file_path : file_path.substr(slash + 1);
  return std::string(base) + "." + std::to_string(offset) + "." + std::string(type);
}

Status write_verify_dump(const std::string& name, const void* data, uint32_t len) {
  std::ofstream f(name, std::ios::binary | std::ios::trunc);
  if (f) f.write(static_cast<const char*>(data), std::streamsize(len));
  if (!f)
    return make_error(Errc::io_error, "verify_dump: cannot write " + name + ": " + std::strerror(errno));
  return {};
}

}  // namespace rs::workload
