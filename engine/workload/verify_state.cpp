#include "workload/verify_state.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/read_file.hpp"
#include "workload/verify.hpp"

namespace rs::workload {
namespace {

constexpr uint64_t kVersion = 3;  // fio's VSTATE_HDR_VERSION
constexpr size_t kHeaderBytes = 24;
constexpr size_t kNameBytes = 64;
constexpr size_t kRandBytes = 8 + 6 * 8;  // use64, then the larger of fio's two generator states
constexpr size_t kListBytes = 8 + 4 + 4 + 8 + 8 + kRandBytes + kNameBytes;
constexpr size_t kCompBytes = 16;

template <typename T>
void put(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(char(uint8_t(uint64_t(v) >> (8 * i))));
}
template <typename T>
T get(const std::string& in, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(uint8_t(in[at + i])) << (8 * i);
  return T(v);
}

// fio's fio_crc32c: CRC-32C without the final inversion.
uint64_t fio_crc32c(const char* data, size_t len) {
  return uint32_t(~crc32c(data, len));
}

Error bad(const std::string& path, const std::string& why) {
  return make_error(Errc::corrupt, "verify_state_load: state file " + path + ": " + why);
}

}  // namespace

std::string verify_state_path(std::string_view job_name, uint64_t index) {
  std::string name(job_name);
  for (char& c : name)
    if (c == '/') c = '.';
  return "local-" + name + "-" + std::to_string(index) + "-verify.state";
}

Status save_verify_state(const VerifyState& s) {
  std::string list;
  put<uint64_t>(list, s.comps.size());
  put<uint32_t>(list, s.depth);
  put<uint32_t>(list, s.nofiles);
  put<uint64_t>(list, s.numberio);
  put<uint64_t>(list, s.index);
  list.append(kRandBytes, '\0');
  std::string name = s.name.substr(0, kNameBytes - 1);
  name.resize(kNameBytes, '\0');
  list += name;
  for (const auto& c : s.comps) put<uint64_t>(list, c.fileno), put<uint64_t>(list, c.offset);
  // The slots fio sizes for every file's depth, used or not.
  list.append((size_t(s.depth) * s.nofiles - std::min<size_t>(s.comps.size(), size_t(s.depth) * s.nofiles)) *
                  kCompBytes,
              '\0');
  std::string file;
  put<uint64_t>(file, kVersion);
  put<uint64_t>(file, list.size());
  put<uint64_t>(file, fio_crc32c(list.data(), list.size()));
  file += list;
  const std::string path = verify_state_path(s.name, s.index);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (f) f.write(file.data(), std::streamsize(file.size()));
  if (!f)
    return make_error(Errc::io_error,
                      "verify_state_save: cannot write " + path + ": " + std::strerror(errno));
  return {};
}

Result<VerifyState> load_verify_state(std::string_view job_name, uint64_t index) {
  const std::string path = verify_state_path(job_name, index);
  const Result<std::string> read = read_file(path);
  if (!read) return make_error(read.error().code, "verify_state_load: state file " + read.error().message);
  const std::string& in = *read;
  if (in.size() < kHeaderBytes + kListBytes) return bad(path, "too short for a verify state");
  if (get<uint64_t>(in, 0) != kVersion)
    return bad(path, "unsupported version " + std::to_string(get<uint64_t>(in, 0)) + " (3 expected)");
  const uint64_t size = get<uint64_t>(in, 8);
  if (size < kListBytes || size != in.size() - kHeaderBytes)
    return bad(path, "its size does not match its header");
  if (fio_crc32c(in.data() + kHeaderBytes, size) != get<uint64_t>(in, 16))
    return bad(path, "corrupt (checksum mismatch)");
  VerifyState s;
  const size_t l = kHeaderBytes;
  const uint64_t no_comps = get<uint64_t>(in, l);
  s.depth = get<uint32_t>(in, l + 8);
  s.nofiles = get<uint32_t>(in, l + 12);
  s.numberio = get<uint64_t>(in, l + 16);
  s.index = get<uint64_t>(in, l + 24);
  const size_t name_at = l + 32 + kRandBytes;
  s.name = std::string(in.data() + name_at, strnlen(in.data() + name_at, kNameBytes));
  if (no_comps > (size - kListBytes) / kCompBytes) return bad(path, "more completions than it holds");
  for (uint64_t i = 0; i < no_comps; ++i) {
    const size_t at = l + kListBytes + i * kCompBytes;
    s.comps.push_back({get<uint64_t>(in, at), get<uint64_t>(in, at + 8)});
  }
  return s;
}

bool verify_state_should_stop(const VerifyState& s, uint64_t reads_done, uint64_t fileno, uint64_t offset) {
  // Far from the end of the saved writes (fio's unsigned arithmetic kept:
  // past numberio reads, the difference wraps and checks stop again).
  if ((reads_done < s.depth || s.numberio - reads_done > s.depth) && s.numberio > s.depth) return false;
  for (const auto& c : s.comps)
    if (c.fileno == fileno && c.offset == offset) return false;
  return true;
}

}  // namespace rs::workload
