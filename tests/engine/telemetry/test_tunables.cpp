// TunableRegistry: parsing by type, range and rule refusals with their
// messages, per-member addressing (md's rdN), events of successful sets.
#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "telemetry/tunables.hpp"

using namespace rs::telemetry;
using rs::Errc;

namespace {

TunableSpec stripe_cache_size() {
  TunableSpec s;
  s.name = "stripe_cache_size";
  s.type = TunableType::integer;
  s.min = 17;
  s.max = 32768;
  s.unit = "stripes";
  return s;
}

TunableSpec min_contig_read() {
  TunableSpec s;
  s.name = "min_contig_read";
  s.type = TunableType::bytes;
  s.min = 0;
  s.max = 67108864;
  s.check = multiple_of_rule(4096);
  return s;
}

TunableSpec read_policy() {
  TunableSpec s;
  s.name = "read_policy";
  s.type = TunableType::choice;
  s.choices = {"md-legacy", "md-rr", "btrfs-pid", "btrfs-rr", "btrfs-qlen"};
  return s;
}

TunableSpec write_mostly() {
  TunableSpec s;
  s.name = "write_mostly";
  s.type = TunableType::boolean;
  s.per_member = true;
  return s;
}

// Parses and returns the value, failing the test with the message if refused.
TunableValue parsed(const TunableSpec& spec, std::string_view text) {
  auto v = TunableRegistry::parse(spec, text);
  INFO(spec.name << "=" << text << ": " << (v ? "" : v.error().message));
  REQUIRE(v.ok());
  return *v;
}

std::string refusal(const TunableSpec& spec, std::string_view text) {
  auto v = TunableRegistry::parse(spec, text);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().code == Errc::invalid_argument);
  return v.error().message;
}

// A registry with the four kinds above over a 2-member array; the setters
// store what they were given.
struct Fixture {
  uint64_t now = 1000;
  EventLog log{[this] { return now; }};
  TunableRegistry reg{&log};
  int64_t cache = 256, contig = 262144, policy = 0;
  std::vector<int64_t> mostly = {0, 0};
  std::vector<int> setter_members;

  Fixture() {
    reg.set_member_count(2);
    reg.add(
        stripe_cache_size(), [this](int) { return std::to_string(cache); },
        [this](int m, const TunableValue& v) {
          setter_members.push_back(m);
          cache = v.number;
          return rs::Status{};
        });
    reg.add(
        min_contig_read(), [this](int) { return std::to_string(contig); },
        [this](int, const TunableValue& v) {
          contig = v.number;
          return rs::Status{};
        });
    reg.add(
        read_policy(), [this](int) { return read_policy().choices[size_t(policy)]; },
        [this](int, const TunableValue& v) {
          policy = v.number;
          return rs::Status{};
        });
    reg.add(
        write_mostly(), [this](int m) { return mostly[size_t(m)] ? "on" : "off"; },
        [this](int m, const TunableValue& v) {
          setter_members.push_back(m);
          mostly[size_t(m)] = v.number;
          return rs::Status{};
        });
  }
};

}  // namespace

TEST_CASE("integer tunables take decimal text within their range", "[tunables]") {
  const auto spec = stripe_cache_size();
  CHECK(parsed(spec, "512").number == 512);
  CHECK(parsed(spec, "512").text == "512");
  CHECK(parsed(spec, "17").number == 17);  // both ends are inside
  CHECK(parsed(spec, "32768").number == 32768);
  CHECK(parsed(spec, " 1024\n").number == 1024);  // as `echo 1024 > stripe_cache_size` writes it

  CHECK(refusal(spec, "9") == "stripe_cache_size=9: out of range 17..32768 stripes");
  CHECK(refusal(spec, "32769") == "stripe_cache_size=32769: out of range 17..32768 stripes");
  CHECK(refusal(spec, "-5") == "stripe_cache_size=-5: out of range 17..32768 stripes");
  CHECK(refusal(spec, "99999999999999999999") ==
        "stripe_cache_size=99999999999999999999: out of range 17..32768 stripes");
  CHECK(refusal(spec, "abc") == "stripe_cache_size=abc: not an integer; range 17..32768 stripes");
  CHECK(refusal(spec, "12x") == "stripe_cache_size=12x: not an integer; range 17..32768 stripes");
  CHECK(refusal(spec, "1K") == "stripe_cache_size=1K: not an integer; range 17..32768 stripes");
  CHECK(refusal(spec, "") == "stripe_cache_size=: not an integer; range 17..32768 stripes");
}

TEST_CASE("bytes tunables take binary K/M/G/T suffixes and refuse overflow", "[tunables]") {
  const auto spec = min_contig_read();
  CHECK(parsed(spec, "0").number == 0);
  CHECK(parsed(spec, "4096").number == 4096);
  CHECK(parsed(spec, "256K").number == 262144);
  CHECK(parsed(spec, "256k").text == "262144");  // canonical text is the decimal byte count
  CHECK(parsed(spec, "256KB").number == 262144);
  CHECK(parsed(spec, "1m").number == 1048576);
  CHECK(parsed(spec, "64M").number == 67108864);  // the top of the range

  CHECK(refusal(spec, "5") == "min_contig_read=5: not a multiple of 4096");
  CHECK(refusal(spec, "5K") == "min_contig_read=5K: not a multiple of 4096");  // 5120
  CHECK(refusal(spec, "65M") == "min_contig_read=65M: out of range 0..67108864 bytes");
  CHECK(refusal(spec, "1G") == "min_contig_read=1G: out of range 0..67108864 bytes");
  CHECK(refusal(spec, "-4096") ==
        "min_contig_read=-4096: not a size in bytes (digits with an optional K, M, G or T suffix); range "
        "0..67108864 bytes");
  CHECK(refusal(spec, "4X").find("not a size in bytes") != std::string::npos);
  CHECK(refusal(spec, "4Kb2").find("not a size in bytes") != std::string::npos);
  CHECK(refusal(spec, "K").find("not a size in bytes") != std::string::npos);
  // fio reads "KiB" as 1000: refused rather than read the other way here.
  CHECK(refusal(spec, "256KiB").find("not a size in bytes") != std::string::npos);

  // Overflow of int64 is refused, not wrapped: (2^23 - 1) TiB = 2^63 - 2^40
  // still fits, 2^23 TiB = 2^63 does not.
  TunableSpec any = spec;
  any.check = nullptr;
  any.max = std::numeric_limits<int64_t>::max();
  CHECK(parsed(any, "8388607T").number == 9223370937343148032);
  CHECK(refusal(any, "8388608T") == "min_contig_read=8388608T: out of range 0..9223372036854775807 bytes");
  CHECK(refusal(any, "99999999999999999999").find("out of range") != std::string::npos);
}

TEST_CASE("boolean tunables take on/off, 1/0, true/false, yes/no", "[tunables]") {
  const auto spec = write_mostly();
  for (const char* yes : {"on", "ON", "1", "true", "True", "yes"}) {
    CHECK(parsed(spec, yes).number == 1);
    CHECK(parsed(spec, yes).text == "on");
  }
  for (const char* no : {"off", "Off", "0", "false", "no", "NO"}) {
    CHECK(parsed(spec, no).number == 0);
    CHECK(parsed(spec, no).text == "off");
  }
  CHECK(refusal(spec, "maybe") == "write_mostly=maybe: not one of on, off, 1, 0, true, false, yes, no");
  CHECK(refusal(spec, "2") == "write_mostly=2: not one of on, off, 1, 0, true, false, yes, no");
}

TEST_CASE("choice tunables take exactly one of their names", "[tunables]") {
  const auto spec = read_policy();
  CHECK(parsed(spec, "md-legacy").number == 0);
  CHECK(parsed(spec, "btrfs-rr").number == 3);
  CHECK(parsed(spec, "btrfs-rr").text == "btrfs-rr");
  const std::string expected = "not one of md-legacy, md-rr, btrfs-pid, btrfs-rr, btrfs-qlen";
  CHECK(refusal(spec, "foo") == "read_policy=foo: " + expected);
  CHECK(refusal(spec, "MD-RR") == "read_policy=MD-RR: " + expected);  // names are exact
  CHECK(refusal(spec, "md-r") == "read_policy=md-r: " + expected);
}

TEST_CASE("range text and canonical text per type", "[tunables]") {
  CHECK(TunableRegistry::range_text(stripe_cache_size()) == "17..32768 stripes");
  CHECK(TunableRegistry::range_text(min_contig_read()) == "0..67108864 bytes");
  CHECK(TunableRegistry::range_text(write_mostly()) == "on|off");
  CHECK(TunableRegistry::range_text(read_policy()) == "md-legacy|md-rr|btrfs-pid|btrfs-rr|btrfs-qlen");
  CHECK(TunableRegistry::canonical_text(read_policy(), 1) == "md-rr");
  CHECK(TunableRegistry::canonical_text(write_mostly(), 1) == "on");
  CHECK(TunableRegistry::canonical_text(min_contig_read(), 4096) == "4096");
  CHECK(std::string(tunable_type_name(TunableType::bytes)) == "bytes");
}

TEST_CASE("set applies the value and records one event with the canonical text", "[tunables]") {
  Fixture f;
  f.now = 5000;
  REQUIRE(f.reg.set("stripe_cache_size", "4096").ok());
  CHECK(f.cache == 4096);
  CHECK(f.setter_members == std::vector<int>{-1});  // array-wide
  f.now = 6000;
  REQUIRE(f.reg.set("min_contig_read", "1M").ok());
  CHECK(f.contig == 1048576);

  const auto events = f.log.since(0);
  REQUIRE(events.size() == 2);
  CHECK(events[0].seq == 1);
  CHECK(events[0].t_ns == 5000);
  CHECK(events[0].kind == "tunable");
  CHECK(events[0].name == "stripe_cache_size");
  CHECK(events[0].value == "4096");
  CHECK(events[1].t_ns == 6000);
  CHECK(events[1].name == "min_contig_read");
  CHECK(events[1].value == "1048576");

  CHECK(*f.reg.get("stripe_cache_size") == "4096");
}

TEST_CASE("a refused value changes nothing and records nothing", "[tunables]") {
  Fixture f;
  const auto st = f.reg.set("stripe_cache_size", "9");
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == Errc::invalid_argument);
  CHECK(st.error().message == "stripe_cache_size=9: out of range 17..32768 stripes");
  CHECK(f.reg.set("min_contig_read", "5").error().message == "min_contig_read=5: not a multiple of 4096");
  CHECK(f.reg.set("read_policy", "foo").error().message ==
        "read_policy=foo: not one of md-legacy, md-rr, btrfs-pid, btrfs-rr, btrfs-qlen");
  CHECK(f.cache == 256);
  CHECK(f.contig == 262144);
  CHECK(f.setter_members.empty());
  CHECK(f.log.last_seq() == 0);
}

TEST_CASE("the owner setter may refuse, its reason shown after name=value", "[tunables]") {
  Fixture f;
  f.reg.add(
      stripe_cache_size(), [](int) { return std::string("256"); },
      [](int, const TunableValue&) {
        return rs::Status(rs::make_error(Errc::busy, "a reshape is running"));
      });
  const auto st = f.reg.set("stripe_cache_size", "512");
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == Errc::busy);
  CHECK(st.error().message == "stripe_cache_size=512: a reshape is running");
  CHECK(f.log.last_seq() == 0);
}

TEST_CASE("per-member tunables are addressed as rdN/name", "[tunables]") {
  Fixture f;
  REQUIRE(f.reg.set("rd1/write_mostly", "yes").ok());
  CHECK(f.mostly == std::vector<int64_t>{0, 1});
  CHECK(f.setter_members == std::vector<int>{1});
  CHECK(*f.reg.get("rd1/write_mostly") == "on");
  CHECK(*f.reg.get("rd0/write_mostly") == "off");
  const auto events = f.log.since(0);
  REQUIRE(events.size() == 1);
  CHECK(events[0].name == "rd1/write_mostly");
  CHECK(events[0].value == "on");

  // Value refusals name the member too.
  CHECK(f.reg.set("rd0/write_mostly", "maybe").error().message ==
        "rd0/write_mostly=maybe: not one of on, off, 1, 0, true, false, yes, no");

  auto without_rd = f.reg.set("write_mostly", "on");
  CHECK(without_rd.error().code == Errc::invalid_argument);
  CHECK(without_rd.error().message ==
        "write_mostly: write_mostly is per member; address it as rdN/write_mostly (the array has 2 "
        "members, rd0..rd1)");

  auto beyond = f.reg.set("rd2/write_mostly", "on");
  CHECK(beyond.error().code == Errc::invalid_argument);
  CHECK(beyond.error().message == "rd2/write_mostly: no member rd2; the array has 2 members, rd0..rd1");

  for (const char* bad : {"md1/write_mostly", "rd/write_mostly", "rdx/write_mostly", "rd-1/write_mostly"}) {
    auto st = f.reg.set(bad, "on");
    INFO(bad);
    CHECK(st.error().code == Errc::invalid_argument);
    CHECK(st.error().message ==
          std::string(bad) + ": a per-member tunable is addressed as rdN/write_mostly, N the member's role");
  }

  auto array_wide = f.reg.set("rd0/stripe_cache_size", "512");
  CHECK(array_wide.error().message ==
        "rd0/stripe_cache_size: stripe_cache_size is array-wide, not per member; address it as "
        "stripe_cache_size");

  // A member added: rd2 exists now.
  f.reg.set_member_count(3);
  f.mostly.push_back(0);
  CHECK(f.reg.set("rd2/write_mostly", "on").ok());
  CHECK(f.mostly[2] == 1);
  CHECK(f.setter_members == std::vector<int>{1, 2});
  CHECK(f.log.last_seq() == 2);
}

TEST_CASE("unknown names are not_found and list what exists", "[tunables]") {
  Fixture f;
  auto st = f.reg.set("stripe_cache", "512");
  CHECK(st.error().code == Errc::not_found);
  CHECK(st.error().message ==
        "no tunable named \"stripe_cache\"; tunables: stripe_cache_size, min_contig_read, read_policy, "
        "rdN/write_mostly");
  CHECK(f.reg.get("rd0/nope").error().code == Errc::not_found);
  CHECK_FALSE(f.reg.has("nope"));
  CHECK(f.reg.has("read_policy"));
  CHECK(f.reg.has("rd1/write_mostly"));
  CHECK_FALSE(f.reg.has("rd2/write_mostly"));

  TunableRegistry empty;
  CHECK(empty.set("x", "1").error().message == "no tunable named \"x\"; tunables: none registered");
}

TEST_CASE("validate checks like set without setting", "[tunables]") {
  Fixture f;
  auto v = f.reg.validate("rd1/write_mostly", "true");
  REQUIRE(v.ok());
  CHECK(v->number == 1);
  CHECK(f.mostly[1] == 0);
  CHECK(f.log.last_seq() == 0);
  CHECK(f.reg.validate("rd5/write_mostly", "on").error().message ==
        "rd5/write_mostly: no member rd5; the array has 2 members, rd0..rd1");
  CHECK(f.reg.validate("min_contig_read", "5").error().message ==
        "min_contig_read=5: not a multiple of 4096");
}

TEST_CASE("list shows every tunable with its range and current values", "[tunables]") {
  Fixture f;
  REQUIRE(f.reg.set("rd0/write_mostly", "on").ok());
  const auto all = f.reg.list();
  REQUIRE(all.size() == 4);
  CHECK(all[0].spec.name == "stripe_cache_size");
  CHECK(all[0].values == std::vector<std::string>{"256"});
  CHECK(all[0].range_text == "17..32768 stripes");
  CHECK(all[2].values == std::vector<std::string>{"md-legacy"});
  CHECK(all[3].spec.name == "write_mostly");
  CHECK(all[3].values == std::vector<std::string>{"on", "off"});  // rd0, rd1
}

TEST_CASE("add replaces a tunable of the same name, remove, read-only tunables", "[tunables]") {
  Fixture f;
  int64_t other = 0;
  f.reg.add(
      stripe_cache_size(), [&](int) { return std::to_string(other); },
      [&](int, const TunableValue& v) {
        other = v.number;
        return rs::Status{};
      });
  REQUIRE(f.reg.set("stripe_cache_size", "1000").ok());
  CHECK(other == 1000);
  CHECK(f.cache == 256);
  CHECK(f.reg.list().size() == 4);

  f.reg.remove("stripe_cache_size");
  CHECK_FALSE(f.reg.has("stripe_cache_size"));
  CHECK(f.reg.set("stripe_cache_size", "512").error().code == Errc::not_found);

  TunableSpec chunk;
  chunk.name = "chunk_size";
  chunk.type = TunableType::bytes;
  chunk.max = 1 << 30;
  f.reg.add(
      chunk, [](int) { return std::string("524288"); }, nullptr);
  CHECK(*f.reg.get("chunk_size") == "524288");
  auto st = f.reg.set("chunk_size", "1M");
  CHECK(st.error().code == Errc::unsupported);
  CHECK(st.error().message == "chunk_size: read-only");
}

TEST_CASE("concurrent sets are applied one at a time, one event each", "[tunables][threads]") {
  std::atomic<uint64_t> clock{0};
  EventLog log([&] { return clock.fetch_add(1) + 1; });
  TunableRegistry reg(&log);
  std::atomic<int> in_setter{0}, overlaps{0}, failures{0};
  int64_t value = 0;
  reg.add(
      stripe_cache_size(), [&](int) { return std::to_string(value); },
      [&](int, const TunableValue& v) {
        if (in_setter.fetch_add(1) != 0) overlaps.fetch_add(1);
        value = v.number;
        in_setter.fetch_sub(1);
        return rs::Status{};
      });
  constexpr int kSets = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSets; ++i)
        if (!reg.set("stripe_cache_size", std::to_string(100 + t)).ok()) failures.fetch_add(1);
    });
  threads.emplace_back([&] {
    for (int i = 0; i < kSets; ++i) (void)reg.list();
  });
  for (auto& t : threads) t.join();
  CHECK(failures.load() == 0);
  CHECK(overlaps.load() == 0);
  const auto events = log.since(0);
  CHECK(events.size() == 2 * kSets);
  // The last event is the value that stayed.
  CHECK(events.back().value == std::to_string(value));
  for (size_t i = 1; i < events.size(); ++i) CHECK(events[i].t_ns > events[i - 1].t_ns);
}

// ---- typed controls (base/tunable_key.hpp) ----

namespace {

enum class Colour { red, green, blue };
constexpr rs::TunableKey<Colour> kColour{"colour"};
constexpr rs::TunableKey<bool> kWriteMostly{"write_mostly"};

// A choice tunable whose owner reads its text with its own parser (as the
// mirror's read_policy uses balance::parse_policy), counting its calls.
struct ColourOwner {
  EventLog log;
  TunableRegistry reg{&log};
  int parses = 0;
  std::vector<Colour> received;
  ColourOwner() {
    TunableSpec s{"colour", TunableType::choice, 0, 0, {"red", "green", "blue"}, "", "a colour"};
    s.parse_text = [this](std::string_view text) -> rs::Result<int64_t> {
      ++parses;
      for (int i = 0; i < 3; ++i)
        if (text == std::array{"red", "green", "blue"}[size_t(i)]) return int64_t(i);
      return rs::make_error(Errc::invalid_argument,
                            "no colour '" + std::string(text) + "' (red, green, blue)");
    };
    reg.add(
        s,
        [this](int) {
          return received.empty() ? "red" : std::array{"red", "green", "blue"}[size_t(received.back())];
        },
        [this](int, const TunableValue& v) {
          received.push_back(Colour(v.number));
          return rs::Status{};
        });
  }
};

}  // namespace

TEST_CASE(
    "a typed set reaches the owner as its type with no text parsed, and text is parsed once, by the owner's "
    "parser",
    "[tunables][typed]") {
  ColourOwner o;
  REQUIRE(o.reg.set(kColour, Colour::blue).ok());
  CHECK(o.parses == 0);  // typed: nothing read from text on the way
  REQUIRE(o.received.size() == 1);
  CHECK(o.received.back() == Colour::blue);
  CHECK(o.log.since(0).back().value == "blue");  // the event has the canonical name

  REQUIRE(o.reg.set("colour", " green ").ok());
  CHECK(o.parses == 1);  // the text edge: the owner's parser, once
  CHECK(o.received.back() == Colour::green);

  // The owner's refusal is what set() shows; nothing reaches the setter.
  const auto bad = o.reg.set("colour", "mauve");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "colour=mauve: no colour 'mauve' (red, green, blue)");
  CHECK(o.received.size() == 2);
  // validate() reads text the same way (a --set-at checked before the run).
  CHECK_FALSE(o.reg.validate("colour", "mauve").ok());
}

TEST_CASE("a typed set is checked as text is: choice index, range, member address", "[tunables][typed]") {
  ColourOwner o;
  const auto out = o.reg.set(kColour, Colour(7));
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().code == Errc::invalid_argument);
  CHECK(out.error().message == "colour=7: not one of red, green, blue");
  CHECK(o.received.empty());
  CHECK(o.log.last_seq() == 0);

  Fixture f;
  CHECK(f.reg.set_number("stripe_cache_size", 9).error().message ==
        "stripe_cache_size=9: out of range 17..32768 stripes");
  REQUIRE(f.reg.set_number("stripe_cache_size", 512).ok());
  CHECK(f.cache == 512);
  // Per member: the key's exact address, rdN/name.
  CHECK(kWriteMostly.at(1) == "rd1/write_mostly");
  REQUIRE(f.reg.set(kWriteMostly, true, 1).ok());
  CHECK(*f.reg.get("rd1/write_mostly") == "on");
  CHECK(f.reg.set(kWriteMostly, true).error().code == Errc::invalid_argument);  // per member: needs rdN
}
