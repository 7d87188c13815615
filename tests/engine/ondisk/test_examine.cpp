// Our superblocks as Debian's `mdadm --examine` reads them, and
// examine_text() against mdadm's own output.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "../../common/needs_tool.hpp"
#include "ondisk/examine.hpp"
#include "ondisk/superblock.hpp"
#include "sb_fixtures.hpp"

using namespace rs::ondisk;
using namespace rs::ondisk::testing;
namespace fs = std::filesystem;

namespace {

constexpr const char* kMdadm = "/sbin/mdadm";

// "      Raid Level : raid10" -> {"Raid Level", "raid10"}; other lines skipped.
std::map<std::string, std::string> fields(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    const auto colon = l.find(" : ");
    if (colon == std::string::npos) continue;
    const auto start = l.find_first_not_of(' ');
    out[l.substr(start, colon - start)] = l.substr(colon + 3);
  }
  return out;
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// A sparse member image: the encoded superblock at byte 4096.
void write_member(const fs::path& path, const Superblock& sb, uint64_t bytes) {
  const auto block = encode(sb);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(bytes)) == 0);
  REQUIRE(::pwrite(fd, block.data(), block.size(), kSbOffsetBytes) == static_cast<ssize_t>(block.size()));
  ::close(fd);
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "rs-ondisk-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("array_sectors follows md's per-level capacity", "[examine]") {
  struct Row {
    Geometry g;
    uint64_t size;
    uint64_t expect;
  };
  const Row rows[] = {
      {kRaid1x2, 1000, 1000},
      {kRaid5x3, 4096, 8192},            // 2 data disks
      {kRaid5x3, 4096 + 100, 8192},      // partial chunk not used
      {kRaid10n2, 8 * 1024, 16 * 1024},  // 4 disks / 2 copies
      {kRaid10f2, 8 * 1024, 16 * 1024},
      {kRaid10o2, 8 * 1024, 16 * 1024},
      {kRaid10f2, 3 * 1024, 4 * 1024},                             // far: 3 chunks / 2 = 1 chunk per far half
      {{"raid10 n2 x3", 10, 0x102, 3, 1024}, 3 * 1024, 4 * 1024},  // 9 chunks / 2, rounded down
      {{"raid10 n2f2 x5", 10, 0x202, 5, 1024}, 4 * 1024, 5 * 1024},
  };
  for (const auto& r : rows) {
    Superblock sb = make_sb(r.g);
    sb.size = r.size;
    INFO(r.g.name << " size " << r.size);
    CHECK(array_sectors(sb) == r.expect);
  }
}

TEST_CASE("human_size rounds like mdadm", "[examine]") {
  CHECK(human_size(5000 * 1024 - 1).empty());
  CHECK(human_size(129024ull * 512) == " (63.00 MiB 66.06 MB)");
  CHECK(human_size(63488ull * 1024) == " (62.00 MiB 65.01 MB)");
  CHECK(human_size(2ull << 30) == " (2.00 GiB 2.15 GB)");
  CHECK(human_size(3ull << 40) == " (3.00 TiB 3.30 TB)");
}

TEST_CASE("examine_text layout", "[examine]") {
  Superblock sb = make_sb(kRaid10o2, 2);
  sb.dev_roles[1] = kRoleFaulty;  // member 1 missing
  const std::string text = examine_text(sb, "/dev/loop7", kDevBytes);
  CHECK(text.rfind("/dev/loop7:\n          Magic : a92b4efc\n        Version : 1.2\n", 0) == 0);
  const auto f = fields(text);
  CHECK(f.at("Array UUID") == uuid_to_string(sb.set_uuid));
  CHECK(f.at("Raid Level") == "raid10");
  CHECK(f.at("Layout") == "offset=2");
  CHECK(f.at("Chunk Size") == "512K");
  CHECK(f.at("Device Role") == "Active device 2");
  CHECK(f.at("Array State") == "A.AA ('A' == active, '.' == missing, 'R' == replacing)");
  CHECK(f.at("Checksum") == ([&] {
          char b[32];
          std::snprintf(b, sizeof b, "%x - correct", checksum(encode(sb)));
          return std::string(b);
        })());
  CHECK(f.at("State") == "clean");
  sb.resync_offset = 0;
  sb.dev_number = 1;  // now the faulty slot
  const auto g = fields(examine_text(sb, "x", kDevBytes));
  CHECK(g.at("State") == "active");
  CHECK(g.at("Device Role") == "spare");
}

TEST_CASE("mdadm --examine reads our superblocks", "[examine][mdadm][needs-tool]") {
  rs::test::require_tool(kMdadm, "cannot cross-check superblocks with mdadm --examine");
  const std::string version = run(std::string(kMdadm) + " --version 2>&1");
  INFO("mdadm: " << version);
  TempDir dir;

  struct Config {
    Geometry g;
    const char* layout;  // mdadm's Layout line, nullptr when not printed
  };
  const Config configs[] = {
      {kRaid1x2, nullptr},     {kRaid10n2, "near=2"},        {kRaid10f2, "far=2"},
      {kRaid10o2, "offset=2"}, {kRaid5x3, "left-symmetric"},
  };
  for (const auto& c : configs) {
    for (uint32_t dev = 0; dev < c.g.raid_disks; ++dev) {
      DYNAMIC_SECTION(c.g.name << " member " << dev) {
        const Superblock sb = make_sb(c.g, dev);
        const fs::path img = dir.path / ("member" + std::to_string(dev) + ".img");
        write_member(img, sb, kDevBytes);
        const std::string out = run(std::string(kMdadm) + " --examine " + img.string() + " 2>&1");
        INFO(out);
        const auto m = fields(out);
        REQUIRE(m.count("Magic"));
        CHECK(m.at("Magic") == "a92b4efc");
        CHECK(m.at("Version") == "1.2");
        CHECK(m.at("Raid Level") == level_name(c.g.level));
        CHECK(m.at("Raid Devices") == std::to_string(c.g.raid_disks));
        CHECK(m.at("Array UUID") == uuid_to_string(sb.set_uuid));
        CHECK(m.at("Device UUID") == uuid_to_string(sb.device_uuid));
        CHECK(m.at("Device Role") == "Active device " + std::to_string(dev));
        CHECK(m.at("Array State").rfind(std::string(c.g.raid_disks, 'A') + " ", 0) == 0);
        CHECK(m.at("Data Offset") == "2048 sectors");
        CHECK(m.at("Events") == "17");
        REQUIRE(m.count("Checksum"));
        CHECK(m.at("Checksum").size() > 10);
        CHECK(m.at("Checksum").substr(m.at("Checksum").size() - 10) == " - correct");
        if (c.layout) {
          CHECK(m.at("Layout") == c.layout);
          CHECK(m.at("Chunk Size") == "512K");
        } else {
          CHECK(m.count("Layout") == 0);
          CHECK(m.count("Chunk Size") == 0);
        }

        // examine_text must agree with mdadm on every line mdadm prints
        // (Name: mdadm may append "(local to host ...)"; compare the name).
        const std::string ours = examine_text(sb, img.string(), kDevBytes);
        INFO("ours:\n" << ours);
        auto o = fields(ours);
        for (const auto& [key, value] : m) {
          INFO("field " << key);
          REQUIRE(o.count(key));
          if (key == "Name")
            CHECK(value.rfind(o.at(key), 0) == 0);
          else
            CHECK(o.at(key) == value);
        }
        CHECK(o.size() == m.size());
      }
    }
  }
}

TEST_CASE("mdadm --examine sees a corrupted checksum, and so do we", "[examine][mdadm][needs-tool]") {
  rs::test::require_tool(kMdadm, "cannot cross-check superblocks with mdadm --examine");
  TempDir dir;
  const Superblock sb = make_sb(kRaid10n2, 0);
  auto block = encode(sb);
  block[100] ^= 0x01;  // inside new_level: a field we do not carry
  const fs::path img = dir.path / "bad.img";
  {
    const int fd = ::open(img.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, static_cast<off_t>(kDevBytes)) == 0);
    REQUIRE(::pwrite(fd, block.data(), block.size(), kSbOffsetBytes) == 4096);
    ::close(fd);
  }
  const auto m = fields(run(std::string(kMdadm) + " --examine " + img.string() + " 2>&1"));
  REQUIRE(m.count("Checksum"));
  CHECK(m.at("Checksum").find(" - expected ") != std::string::npos);
  const auto d = decode(block, kDevBytes);
  CHECK_FALSE(d.ok());
  CHECK(d.error().message.find("does not match computed") != std::string::npos);
}
