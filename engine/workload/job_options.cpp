#include "workload/job_options.hpp"

namespace rs::workload {

std::string_view to_string(RwMode m) noexcept {
  switch (m) {
    case RwMode::read:
      return "read";
    case RwMode::write:
      return "write";
    case RwMode::randread:
      return "randread";
    case RwMode::randwrite:
      return "randwrite";
    case RwMode::readwrite:
      return "rw";
    case RwMode::randrw:
      return "randrw";
    case RwMode::trim:
      return "trim";
    case RwMode::randtrim:
      return "randtrim";
    case RwMode::trimwrite:
      return "trimwrite";
    case RwMode::randtrimwrite:
      return "randtrimwrite";
  }
  return "?";
}

std::string_view to_string(IoEngine e) noexcept {
  switch (e) {
    case IoEngine::io_uring:
      return "io_uring";
    case IoEngine::libaio:
      return "libaio";
    case IoEngine::psync:
      return "psync";
    case IoEngine::sync:
      return "sync";
    case IoEngine::vsync:
      return "vsync";
    case IoEngine::pvsync:
      return "pvsync";
    case IoEngine::pvsync2:
      return "pvsync2";
    case IoEngine::mmap:
      return "mmap";
    case IoEngine::posixaio:
      return "posixaio";
    case IoEngine::null:
      return "null";
  }
  return "?";
}

std::string_view to_string(Distribution d) noexcept {
  switch (d) {
    case Distribution::random:
      return "random";
    case Distribution::zipf:
      return "zipf";
    case Distribution::pareto:
      return "pareto";
    case Distribution::normal:
      return "normal";
    case Distribution::zoned:
      return "zoned";
  }
  return "?";
}

std::string_view to_string(VerifyKind v) noexcept {
  switch (v) {
    case VerifyKind::none:
      return "0";
    case VerifyKind::crc32c:
      return "crc32c";
    case VerifyKind::md5:
      return "md5";
    case VerifyKind::crc64:
      return "crc64";
    case VerifyKind::sha1:
      return "sha1";
    case VerifyKind::sha256:
      return "sha256";
    case VerifyKind::sha512:
      return "sha512";
    case VerifyKind::xxhash:
      return "xxhash";
    case VerifyKind::meta:
      return "meta";
    case VerifyKind::pattern:
      return "pattern";
  }
  return "?";
}

}  // namespace rs::workload
