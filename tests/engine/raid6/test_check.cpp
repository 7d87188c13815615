// RAID6 check and repair: a corrupted P page, a corrupted Q page and a
// corrupted data page are each counted by check (md's mismatch_cnt, 8
// sectors per 4 KiB page) with the syndrome that disagreed named in the
// raid6 counters; repair rewrites P and Q as the data gives them (md trusts
// the data), after which check finds nothing.
#include "gf_reference.hpp"
#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

TEST_CASE("raid6 check finds a bad P, a bad Q and a bad data page, and repair rewrites the syndromes",
          "[raid6][check]") {
  TempDir dir;
  auto paths = member_paths(dir, 4);
  auto arr = create_raid6({4, 2}, paths);  // left-symmetric, md's default
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(29);
  write_random(*arr, model, rng, 10);
  REQUIRE(check_ok(*arr, false) == 0);
  const uint64_t data_offset = arr->shape().data_offset * 512;
  arr.reset();
  // md's left-symmetric on 4 members, worked by hand: stripe 0 is Q D0 D1 P,
  // stripe 1 is D2 D3 P Q. So member 3 holds stripe 0's P and stripe 1's Q,
  // and member 1 holds data chunk 0.
  std::vector<uint8_t> junk(4096, 0x5a);
  write_file_at(paths[3], data_offset + 4096, junk.data(), 4096);                // stripe 0, P
  write_file_at(paths[3], data_offset + kChunkBytes + 8192, junk.data(), 4096);  // stripe 1, Q
  write_file_at(paths[1], data_offset + 12288, junk.data(), 4096);               // stripe 0, D0
  arr = assemble(paths);
  const auto& c = personality(*arr).counters();
  CHECK(check_ok(*arr, false) == 3 * 8);
  CHECK(c.p_mismatches.load() == 2);  // P's page, and the data page (P and Q both disagree)
  CHECK(c.q_mismatches.load() == 2);  // Q's page, and the data page
  // The check's own counts, and its event, say the same in words.
  CHECK(arr->check_p_wrong_pages() == 2);
  CHECK(arr->check_q_wrong_pages() == 2);
  const auto events = arr->events().since(0);
  const auto said = std::find_if(events.begin(), events.end(), [](const telemetry::Event& e) {
    return e.kind == "task" && e.value == "mismatches";
  });
  REQUIRE(said != events.end());
  CHECK(said->message.find("P (the parity) was wrong on 2 pages and Q (the second syndrome) on 2 pages") ==
        0);
  CHECK(check_ok(*arr, true) == 3 * 8);  // repair reports what it fixed
  CHECK(check_ok(*arr, false) == 0);
  // P and Q damage left the data alone; the data page reads back as changed.
  std::memcpy(model.data() + 12288, junk.data(), 4096);
  read_matches(*arr, model);
  // Repaired syndromes recover the data: with both data members of stripe 0 gone.
  require_ok(arr->fail_member(1, "test"));
  require_ok(arr->fail_member(2, "test"));
  read_matches(*arr, model);
}

TEST_CASE("raid6 P and Q on the members are md's: Q's terms in md's syndrome order, not the data order",
          "[raid6][check]") {
  // 5 members, left-asymmetric (layout 0). Worked by hand from md's rules:
  // stripe 2 has P on member 2, Q on 3, data chunks 0 1 2 on members 0 1 4;
  // md's Q walk starts after Q (member 4), so Q = D2 + g*D0 + g^2*D1.
  TempDir dir;
  auto paths = member_paths(dir, 5);
  auto arr = create_raid6({5, 0}, paths);
  std::mt19937_64 rng(55);
  auto data = random_bytes(rng, 3 * kChunkBytes);
  const uint64_t stripe2 = 2 * 3 * uint64_t(kChunkBytes);  // array offset of stripe 2
  require_ok(array_write(*arr, stripe2, data.data(), data.size()));
  const uint64_t at = arr->shape().data_offset * 512 + 2 * uint64_t(kChunkBytes);
  arr.reset();
  auto chunk = [&](int member) { return read_file_at(paths[size_t(member)], at, kChunkBytes); };
  const auto d0 = chunk(0), d1 = chunk(1), p = chunk(2), q = chunk(3), d2 = chunk(4);
  REQUIRE(std::equal(d0.begin(), d0.end(), data.begin()));
  REQUIRE(std::equal(d2.begin(), d2.end(), data.begin() + 2 * kChunkBytes));
  for (size_t b = 0; b < kChunkBytes; ++b) {
    REQUIRE(p[b] == uint8_t(d0[b] ^ d1[b] ^ d2[b]));
    REQUIRE(q[b] == uint8_t(d2[b] ^ gf_mul_bits(2, d0[b]) ^ gf_mul_bits(4, d1[b])));
  }
}
