// --layout spellings: exactly mdadm's (util.c parse_layout_10, maps.c
// r5layout), md's layout words from engine/ondisk/README.md, and refusals
// that name the option and the valid range instead of throwing or wrapping.
#include <catch2/catch.hpp>
#include <string>

#include "layout/layout_names.hpp"

using namespace rs;
using namespace rs::layout;

namespace {

std::string raid10_error(const std::string& text, int disks) {
  auto r = parse_raid10_layout(text, disks);
  INFO("--layout=" << text << " with " << disks << " members");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == Errc::invalid_argument);
  CHECK(r.error().message.find("--layout=" + text) != std::string::npos);
  return r.error().message;
}

}  // namespace

TEST_CASE("raid10 layouts parse to md's layout word") {
  struct Row {
    const char* text;
    int disks;
    uint32_t word;
  };
  // Words from engine/ondisk/README.md: near copies in bits 0-7, far in 8-15, bit 16 offset.
  const Row rows[] = {
      {"n2", 4, 0x102},   {"f2", 4, 0x201},  {"o2", 4, 0x10201},   {"n3", 3, 0x103}, {"f4", 4, 0x401},
      {"o3", 5, 0x10301}, {"n02", 2, 0x102}, {"n255", 300, 0x1ff}, {"n2", 2, 0x102},
  };
  for (const auto& row : rows) {
    INFO(row.text << " on " << row.disks);
    auto r = parse_raid10_layout(row.text, row.disks);
    REQUIRE(r.ok());
    CHECK(*r == row.word);
  }
}

TEST_CASE("raid10 copies outside 2..members are refused with the range") {
  CHECK(raid10_error("n99999999999", 4).find("copies must be 2..4") != std::string::npos);
  CHECK(raid10_error("n18446744073709551618", 4).find("copies must be 2..4") != std::string::npos);
  CHECK(raid10_error("n5", 4).find("copies must be 2..4") != std::string::npos);
  CHECK(raid10_error("f1", 4).find("copies must be 2..4") != std::string::npos);
  CHECK(raid10_error("o0", 4).find("copies must be 2..4") != std::string::npos);
  // The word has 8 bits per count: 256 copies cannot be written even with 300 members.
  CHECK(raid10_error("n256", 300).find("copies must be 2..255") != std::string::npos);
  CHECK(raid10_error("n2", 1).find("at least 2 members") != std::string::npos);
}

TEST_CASE("raid10 spellings mdadm does not take are refused") {
  for (const char* bad : {"2n", "n", "", "N2", "near2", "far2", "offset2", "n2x", "n-2", "n+2", "n 2", " n2",
                          "x2", "n2.0", "nn2", "o"}) {
    INFO("'" << bad << "'");
    CHECK(raid10_error(bad, 4).find("n, f or o followed by the number of copies") != std::string::npos);
  }
}

TEST_CASE("raid10 layout names are mdadm's spellings of the word") {
  CHECK(raid10_layout_name(0x102) == "n2");
  CHECK(raid10_layout_name(0x201) == "f2");
  CHECK(raid10_layout_name(0x10201) == "o2");
  CHECK(raid10_layout_name(0x103) == "n3");
  CHECK(raid10_layout_name(0x202) == "");    // near=2, far=2: no mdadm spelling
  CHECK(raid10_layout_name(0x20102) == "");  // far sets
  CHECK(raid10_layout_name(0x10202) == "");
  for (const char* text : {"n2", "f2", "o2", "n3", "f3", "o3"}) {
    auto r = parse_raid10_layout(text, 6);
    REQUIRE(r.ok());
    CHECK(raid10_layout_name(*r) == text);
  }
}

TEST_CASE("raid5 layouts: mdadm's names and aliases to md's algorithm numbers") {
  struct Row {
    const char* text;
    int algorithm;
  };
  // engine/ondisk/README.md: 0 left-asymmetric, 1 right-asymmetric, 2 left-symmetric, 3 right-symmetric.
  const Row rows[] = {
      {"left-asymmetric", 0},
      {"right-asymmetric", 1},
      {"left-symmetric", 2},
      {"right-symmetric", 3},
      {"la", 0},
      {"ra", 1},
      {"ls", 2},
      {"rs", 3},
      {"default", 2},
      {"ddf-N-restart", 0},
      {"ddf-zero-restart", 1},
      {"ddf-N-continue", 2},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    auto r = parse_raid5_layout(row.text);
    REQUIRE(r.ok());
    CHECK(*r == row.algorithm);
  }
}

TEST_CASE("raid5 layouts mdadm does not know are refused; parity-first/last are unsupported") {
  for (const char* bad :
       {"", "LS", "Left-Symmetric", "left_symmetric", "ls ", "2", "n2", "left-symmetric-6"}) {
    INFO("'" << bad << "'");
    auto r = parse_raid5_layout(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == Errc::invalid_argument);
    CHECK(r.error().message.find("--layout=" + std::string(bad) + ":") == 0);
    CHECK(r.error().message.find("left-symmetric") != std::string::npos);
  }
  for (const char* known : {"parity-first", "parity-last"}) {
    auto r = parse_raid5_layout(known);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == Errc::unsupported);
    CHECK(r.error().message.find(known) != std::string::npos);
  }
}

TEST_CASE("raid5 layout names round-trip") {
  CHECK(raid5_layout_name(0) == "left-asymmetric");
  CHECK(raid5_layout_name(1) == "right-asymmetric");
  CHECK(raid5_layout_name(2) == "left-symmetric");
  CHECK(raid5_layout_name(3) == "right-symmetric");
  CHECK(raid5_layout_name(4) == "");
  CHECK(raid5_layout_name(-1) == "");
  for (int a = 0; a <= 3; ++a) {
    auto r = parse_raid5_layout(raid5_layout_name(a));
    REQUIRE(r.ok());
    CHECK(*r == a);
  }
}
