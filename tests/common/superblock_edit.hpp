// An image file's md superblock read, edited and written back with the
// project's own encoder (checksum recomputed): the states a crash or a
// hostile disk leaves, made on purpose. No test framework here: the engine
// tests require the results ok, the GUI tests QVERIFY them, rs_sb_edit
// prints them.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "base/unique_fd.hpp"
#include "ondisk/superblock.hpp"

namespace rs::test {

namespace superblock_file {
inline Error io_error(const std::string& path, const char* what) {
  return make_error(Errc::io_error, path + ": " + what + ": " + std::strerror(errno));
}
}  // namespace superblock_file

// The superblock of the image file at `path`, decoded (and validated).
inline Result<ondisk::Superblock> read_superblock_file(const std::string& path) {
  const UniqueFd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!f) return superblock_file::io_error(path, "cannot open");
  const off_t size = ::lseek(f.get(), 0, SEEK_END);
  if (size < 0) return superblock_file::io_error(path, "cannot find its size");
  std::vector<uint8_t> block(4096);
  const ssize_t got = ::pread(f.get(), block.data(), block.size(), off_t(ondisk::kSbOffsetBytes));
  if (got < 0) return superblock_file::io_error(path, "cannot read the superblock");
  if (got != ssize_t(block.size()))
    return make_error(Errc::invalid_argument,
                      path + ": too short to hold a superblock (" + std::to_string(size) + " bytes)");
  return ondisk::decode(block, uint64_t(size));
}

// Writes `sb` encoded as the superblock of the image file at `path`.
inline Status write_superblock_file(const std::string& path, const ondisk::Superblock& sb) {
  const UniqueFd f(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!f) return superblock_file::io_error(path, "cannot open");
  const auto out = ondisk::encode(sb);
  if (::pwrite(f.get(), out.data(), out.size(), off_t(ondisk::kSbOffsetBytes)) != ssize_t(out.size()))
    return superblock_file::io_error(path, "cannot write the superblock");
  // The array reads with O_DIRECT: get the bytes to the file before it looks.
  if (::fsync(f.get()) != 0) return superblock_file::io_error(path, "cannot sync");
  return {};
}

// The superblock of `path` rewritten with `edit` applied.
inline Status edit_superblock(const std::string& path, const std::function<void(ondisk::Superblock&)>& edit) {
  auto sb = read_superblock_file(path);
  if (!sb) return sb.error();
  edit(*sb);
  return write_superblock_file(path, *sb);
}

}  // namespace rs::test
