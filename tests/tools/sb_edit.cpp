// rs_sb_edit FILE field=value...: rewrites fields of the md v1.2 superblock
// of a member file with the project's own encoder (checksum recomputed), to
// build the states a crash or a hostile disk leaves for the reliability
// tests. A value is decimal or 0x hex, or +N / -N relative to the current
// one. Fields: events, resync_offset, recovery_offset, feature_map,
// dev_number, devflags, cnt_corrected_read, roleN (dev_roles[N]).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/superblock_edit.hpp"
#include "ondisk/superblock.hpp"

namespace {

int usage() {
  std::fprintf(stderr, "usage: rs_sb_edit FILE field=value...\n");
  return 2;
}

bool apply(uint64_t& field, const std::string& text) {
  char* end = nullptr;
  if (text.empty()) return false;
  if (text[0] == '+' || text[0] == '-') {
    const uint64_t d = std::strtoull(text.c_str() + 1, &end, 0);
    field = text[0] == '+' ? field + d : field - d;
  } else {
    field = std::strtoull(text.c_str(), &end, 0);
  }
  return end && !*end;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  auto res = rs::test::read_superblock_file(argv[1]);
  if (!res) return std::fprintf(stderr, "%s\n", res.error().message.c_str()), 1;
  rs::ondisk::Superblock sb = *res;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (eq == std::string::npos) return usage();
    const std::string key = arg.substr(0, eq), val = arg.substr(eq + 1);
    uint64_t v = 0;
    bool ok = true;
    if (key == "events")
      ok = apply(sb.events, val);
    else if (key == "resync_offset")
      ok = apply(sb.resync_offset, val);
    else if (key == "recovery_offset")
      ok = apply(sb.recovery_offset, val);
    else if (key.rfind("role", 0) == 0) {
      const size_t n = std::stoul(key.substr(4));
      if (n >= sb.dev_roles.size()) return std::fprintf(stderr, "no role %zu\n", n), 2;
      v = sb.dev_roles[n];
      ok = apply(v, val);
      sb.dev_roles[n] = uint16_t(v);
    } else {
      uint64_t* target = nullptr;
      uint64_t fm = sb.feature_map, dn = sb.dev_number, df = sb.devflags, cr = sb.cnt_corrected_read;
      if (key == "feature_map")
        target = &fm;
      else if (key == "dev_number")
        target = &dn;
      else if (key == "devflags")
        target = &df;
      else if (key == "cnt_corrected_read")
        target = &cr;
      else
        return std::fprintf(stderr, "unknown field %s\n", key.c_str()), 2;
      ok = apply(*target, val);
      sb.feature_map = uint32_t(fm);
      sb.dev_number = uint32_t(dn);
      sb.devflags = uint8_t(df);
      sb.cnt_corrected_read = uint32_t(cr);
    }
    if (!ok) return std::fprintf(stderr, "bad value in %s\n", arg.c_str()), 2;
  }
  const rs::Status written = rs::test::write_superblock_file(argv[1], sb);
  if (!written.ok()) return std::fprintf(stderr, "%s\n", written.error().message.c_str()), 1;
  return 0;
}
