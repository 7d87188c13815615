// A member whose I/O fails: the member is failed as md does and the array
// I/O still succeeds from the rest of the stripe. A failed read (or a failed
// pre-read of a partial-stripe write) makes the I/O plan again without the
// member; a failed member write is covered by the parity written with it.
#include <cstring>
#include <optional>

#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

namespace {

constexpr uint32_t kIo = 192 * 1024;  // crosses chunks and stripes at most offsets

std::vector<uint8_t> fill(raid::Array& arr, std::mt19937_64& rng) {
  auto model = random_bytes(rng, arr.size_bytes());
  require_ok(array_write(arr, 0, model.data(), model.size()));
  return model;
}

}  // namespace

// max_read_errors 0: the first read error fails the member (above it, see
// test_read_errors.cpp).
TEST_CASE("raid5: a member's read errors past the threshold fail it; reads are reconstructed", "[raid5][errors]") {
  const int bad = GENERATE(0, 2);
  TempDir dir;
  auto paths = member_paths(dir, 4);
  auto arr = create_raid5({4, 2}, paths);
  std::mt19937_64 rng(21);
  const auto model = fill(*arr, rng);
  auto fbp = std::make_unique<FailingBackend>(arr->make_backend(8));
  FailingBackend& fb = *fbp;
  std::optional<TestPort> ftp(std::in_place, *arr, std::move(fbp));
  fb.fail_reads(bad);
  require_ok(arr->tunables().set("max_read_errors", "0"));
  std::vector<uint8_t> buf(kIo);
  for (uint64_t off = 0; off + kIo <= model.size(); off += kIo) {
    INFO("read at " << off);
    REQUIRE(submit_rw(*ftp, false, off, buf.data(), kIo) == int(kIo));
    REQUIRE(std::memcmp(buf.data(), model.data() + off, kIo) == 0);
  }
  CHECK(fb.injected() >= 1);
  CHECK(state(*arr, bad) == raid::MemberState::faulty);
  CHECK(arr->member_note(bad).find("read error") != std::string::npos);
  ftp.reset();
  read_matches(*arr, model);
}

TEST_CASE("raid5: a failed pre-read: the write plans again and succeeds", "[raid5][errors]") {
  TempDir dir;
  auto paths = member_paths(dir, 5);
  auto arr = create_raid5({5, 2}, paths);
  std::mt19937_64 rng(22);
  auto model = fill(*arr, rng);
  auto fbp = std::make_unique<FailingBackend>(arr->make_backend(8));
  FailingBackend& fb = *fbp;
  std::optional<TestPort> ftp(std::in_place, *arr, std::move(fbp));
  // 5 members, one 4 KiB block written: rmw reads the block and the parity.
  // Stripe 0 (left-symmetric) holds array chunk 0 on member 0, parity on 4.
  fb.fail_reads(4);
  require_ok(arr->tunables().set("max_read_errors", "0"));
  auto data = random_bytes(rng, 4096);
  REQUIRE(submit_rw(*ftp, true, 8192, data.data(), 4096) == 4096);
  std::memcpy(model.data() + 8192, data.data(), 4096);
  CHECK(fb.injected() == 1);
  CHECK(state(*arr, 4) == raid::MemberState::faulty);
  ftp.reset();
  read_matches(*arr, model);
  raid::AddOptions ao;
  ao.create_files_bytes = kRaid5MemberBytes;
  require_ok(add_member(*arr, dir.file("new.img"), ao));
  CHECK(check_ok(*arr, false) == 0);
  read_matches(*arr, model);
}

TEST_CASE("raid5: a member's write errors fail it; the data is in the parity", "[raid5][errors]") {
  const int bad = GENERATE(1, 3);
  TempDir dir;
  auto paths = member_paths(dir, 4);
  auto arr = create_raid5({4, 2}, paths);
  std::mt19937_64 rng(23);
  auto model = fill(*arr, rng);
  auto fbp = std::make_unique<FailingBackend>(arr->make_backend(8));
  FailingBackend& fb = *fbp;
  std::optional<TestPort> ftp(std::in_place, *arr, std::move(fbp));
  fb.fail_writes(bad);
  for (uint64_t off = 4096; off + kIo <= model.size(); off += 3 * kIo) {
    auto data = random_bytes(rng, kIo);
    INFO("write at " << off);
    REQUIRE(submit_rw(*ftp, true, off, data.data(), kIo) == int(kIo));
    std::memcpy(model.data() + off, data.data(), kIo);
  }
  CHECK(fb.injected() >= 1);
  CHECK(state(*arr, bad) == raid::MemberState::faulty);
  ftp.reset();
  read_matches(*arr, model);
  // Without the failed member, after a stop, every byte is still there.
  std::vector<std::string> rest;
  for (int i = 0; i < 4; ++i)
    if (i != bad) rest.push_back(paths[size_t(i)]);
  arr.reset();
  raid::AssembleOptions opt;
  opt.run = true;
  arr = assemble(rest, opt);
  read_matches(*arr, model);
}
