// The fault backend and MemberDevice's synchronous path see one FaultPlan:
// chosen byte ranges of a member fail with the rule's errno, a fixed number
// of times or for ever, reads and (when asked) writes; a failed I/O never
// reaches the file, and a pending sector stops failing once written.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "io/fault_backend.hpp"
#include "io/member_device.hpp"
#include "io/uring_backend.hpp"
#include "real_files.hpp"

using namespace rs::io;
using namespace rs::io::test;

namespace {

std::unique_ptr<MemberDevice> open_rw(const TempFile& f) {
  std::string err;
  auto dev = rs::test::or_empty(MemberDevice::open(f.path, OpenMode::ReadWrite), &err);
  INFO(err);
  REQUIRE(dev);
  return dev;
}

// One 4 KiB I/O through `backend`, waited for; returns its result.
int one_io(Backend& backend, bool write, uint64_t offset, void* buf) {
  Completion c;
  MemberIo io;
  io.member = 0;
  io.write = write;
  io.offset = offset;
  io.length = kBlock;
  io.buffer = buf;
  io.done = &count_completion;
  io.owner = &c;
  backend.queue(io);
  backend.submit();
  while (c.calls == 0) backend.reap(1);
  REQUIRE(c.calls == 1);
  return c.result;
}

}  // namespace

TEST_CASE("fault backend: chosen blocks fail with the rule's errno, the rest passes through",
          "[io][faults]") {
  TempFile file(8);  // block i holds 1 + i
  auto dev = open_rw(file);
  auto plan = std::make_shared<FaultPlan>();
  dev->set_faults(plan);
  // Block 2 fails twice; block 5 fails for ever with ENODATA.
  plan->add({file.path, 2 * kBlock, kBlock, true, false, 2, EIO, false});
  plan->add({file.path, 5 * kBlock + 512, 512, true, false, -1, ENODATA, false});
  MemberDevice* members[] = {dev.get()};
  FaultBackend backend(make_real_backend(members, 8).backend, members);
  AlignedBuffer buf = rs::test::must(AlignedBuffer::allocate(kBlock));

  CHECK(one_io(backend, false, 1 * kBlock, buf.data()) == int(kBlock));
  CHECK(buf.data()[0] == 2);
  CHECK(one_io(backend, false, 2 * kBlock, buf.data()) == -EIO);
  // The buffer of a failed read is not the block's bytes.
  CHECK(buf.data()[0] == FaultPlan::kPoison);
  CHECK(one_io(backend, false, 2 * kBlock, buf.data()) == -EIO);
  CHECK(one_io(backend, false, 2 * kBlock, buf.data()) == int(kBlock));  // used up
  CHECK(buf.data()[0] == 3);
  for (int i = 0; i < 3; ++i) CHECK(one_io(backend, false, 5 * kBlock, buf.data()) == -ENODATA);
  // Writes are not in these rules.
  std::memset(buf.data(), 0x77, kBlock);
  CHECK(one_io(backend, true, 5 * kBlock, buf.data()) == int(kBlock));
  CHECK(plan->failed(file.path, false) == 5);
  CHECK(plan->failed(file.path, true) == 0);
  CHECK(backend.in_flight() == 0);

  // The synchronous path sees the same plan.
  std::string err;
  err = rs::test::error_text(dev->read_at(5 * kBlock, buf.data(), kBlock));
  CHECK_FALSE(err.empty());
  CHECK(err.find(strerror(ENODATA)) != std::string::npos);
  CHECK(err.find(file.path) != std::string::npos);
  err = rs::test::error_text(dev->read_at(4 * kBlock, buf.data(), kBlock));
  CHECK(err.empty());
  CHECK(buf.data()[0] == 5);
}

TEST_CASE("fault backend: a failed write leaves the media as it was", "[io][faults]") {
  TempFile file(4);
  auto dev = open_rw(file);
  auto plan = std::make_shared<FaultPlan>();
  dev->set_faults(plan);
  plan->add({file.path, kBlock, kBlock, false, true, -1, EIO, false});
  MemberDevice* members[] = {dev.get()};
  FaultBackend backend(make_real_backend(members, 8).backend, members);
  AlignedBuffer buf = rs::test::must(AlignedBuffer::allocate(kBlock));
  std::memset(buf.data(), 0x99, kBlock);
  CHECK(one_io(backend, true, kBlock, buf.data()) == -EIO);
  std::string err;
  err = rs::test::error_text(dev->write_at(kBlock, buf.data(), kBlock));
  CHECK_FALSE(err.empty());
  // Reads of it are fine, and the bytes are the old ones.
  CHECK(one_io(backend, false, kBlock, buf.data()) == int(kBlock));
  CHECK(buf.data()[100] == 2);
  CHECK(plan->failed(file.path, true) == 2);
}

TEST_CASE("fault backend: an unreadable sector stops failing once it is written", "[io][faults]") {
  TempFile file(4);
  auto dev = open_rw(file);
  auto plan = std::make_shared<FaultPlan>();
  dev->set_faults(plan);
  plan->add({file.path, 2 * kBlock, kBlock, true, false, -1, EIO, true});
  AlignedBuffer buf = rs::test::must(AlignedBuffer::allocate(kBlock));
  std::string err;
  err = rs::test::error_text(dev->read_at(2 * kBlock, buf.data(), kBlock));
  CHECK_FALSE(err.empty());
  err = rs::test::error_text(dev->read_at(2 * kBlock, buf.data(), kBlock));
  CHECK_FALSE(err.empty());
  // A write elsewhere changes nothing; a write over it remaps it.
  std::memset(buf.data(), 0x42, kBlock);
  err = rs::test::error_text(dev->write_at(3 * kBlock, buf.data(), kBlock));
  REQUIRE(err.empty());
  err = rs::test::error_text(dev->read_at(2 * kBlock, buf.data(), kBlock));
  CHECK_FALSE(err.empty());
  std::memset(buf.data(), 0x42, kBlock);
  err = rs::test::error_text(dev->write_at(2 * kBlock, buf.data(), kBlock));
  REQUIRE(err.empty());
  err = rs::test::error_text(dev->read_at(2 * kBlock, buf.data(), kBlock));
  REQUIRE(err.empty());
  CHECK(buf.data()[0] == 0x42);
}
