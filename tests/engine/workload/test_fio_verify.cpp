// verify_interval and verify_pattern (issue 16; fio's surface-scan example:
// verify=meta, verify_pattern=0xaa555aa5, verify_interval=512, bs=64k): a
// write job stamps a header every verify_interval bytes and fills the rest
// with the pattern; a later read job with the same options checks them.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "fio_run_on_file.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"
#include "workload/verify.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

const std::vector<std::string> kScan = {"--bs=64k",
                                        "--size=256k",
                                        "--ioengine=psync",
                                        "--verify=meta",
                                        "--verify_pattern=0xaa555aa5",
                                        "--verify_interval=512"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("verify_pattern parses as fio writes it", "[verify][job_parser]") {
  auto r = parse_job_file(
      "[a]\nverify_pattern=0xaa555aa5\n[b]\nverify_pattern=0xabc\n[c]\nverify_pattern=\"ab\"\n", "x.fio");
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  CHECK(r->jobs[0].verify_pattern == std::vector<uint8_t>{0xaa, 0x55, 0x5a, 0xa5});  // in the order written
  CHECK(r->jobs[1].verify_pattern == std::vector<uint8_t>{0x0a, 0xbc});  // odd digits: padded in front
  CHECK(r->jobs[2].verify_pattern == std::vector<uint8_t>{'a', 'b'});
  // fio's decimals: a 32-bit value, least significant byte first (12345 is 0x3039).
  auto dec = parse_job_file("[a]\nverify_pattern=12345\n", "x.fio");
  REQUIRE(dec.ok());
  CHECK(dec->jobs[0].verify_pattern == std::vector<uint8_t>{0x39, 0x30});
  CHECK_THAT(parse_job_file("[a]\nverify_pattern=%o\n", "x.fio").error().message,
             Catch::Contains("verify_pattern: bad pattern '%o': formats such as %o are not supported"));
  CHECK_THAT(parse_job_file("[a]\nverify_interval=100\n", "x.fio").error().message,
             Catch::Contains("verify_interval: '100' must be at least 512 bytes"));
}

TEST_CASE("verify=meta with a pattern: header, then the pattern, checked byte by byte", "[verify]") {
  const uint8_t pat[] = {0xaa, 0x55, 0x5a, 0xa5};
  const VerifyPattern p{pat, sizeof pat};
  std::vector<unsigned char> b(512, 0);
  verify_fill(VerifyKind::meta, b.data(), 512, 4096, 1, p);
  for (uint32_t i = 32; i < 512; ++i) {
    INFO("byte " << i);
    REQUIRE(b[i] == pat[i % 4]);
  }
  CHECK(verify_check(VerifyKind::meta, b.data(), 512, 4096, p).ok);
  b[101] = 0;  // 101 % 4 == 1: the pattern's 0x55
  const VerifyResult r = verify_check(VerifyKind::meta, b.data(), 512, 4096, p);
  CHECK_FALSE(r.ok);
  CHECK(std::string(r.reason) == "pattern mismatch at byte 101 (want 0x55 got 0x00)");
  // A checksum kind with a pattern: the checksum still covers the payload.
  std::vector<unsigned char> c(512, 0);
  verify_fill(VerifyKind::crc32c, c.data(), 512, 0, 1, p);
  c[300] ^= 1;
  CHECK_THAT(
      std::string(verify_check(VerifyKind::crc32c, c.data(), 512, 0, p).reason),
      Catch::StartsWith("data checksum mismatch (crc32c want ") && Catch::EndsWith("first bad byte at 300"));
}

TEST_CASE("verify_interval: a header every interval, a read job checks them", "[verify][engines]") {
  test::TempDir dir("rs-verify");
  const std::string path = dir.file("f");
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, 256 << 10) == 0);
    ::close(fd);
  }
  // surface-scan's write phase: do_verify=0, the checks come from the read job.
  RunOutcome w =
      fio_test::run_on_file(path, with({"--name=write-phase", "--rw=write", "--do_verify=0"}, kScan));
  REQUIRE(w.ok);
  CHECK(w.results.jobs[0].write.io_bytes == 256u << 10);
  CHECK(w.verify_errors == 0);

  std::vector<unsigned char> data(256 << 10);
  {
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(::pread(fd, data.data(), data.size(), 0) == ssize_t(data.size()));
    ::close(fd);
  }
  // 512 headers (256 KiB / 512), each naming its own offset, the pattern between them.
  for (uint64_t at = 0; at < data.size(); at += 512) {
    INFO("interval at " << at);
    REQUIRE(std::memcmp(&data[at], "RSVB", 4) == 0);
    uint64_t off = 0;
    std::memcpy(&off, &data[at + 12], 8);
    REQUIRE(off == at);
    REQUIRE(data[at + 32] == 0xaa);
    REQUIRE(data[at + 511] == 0xa5);
  }

  RunOutcome r =
      fio_test::run_on_file(path, with({"--name=verify-phase", "--rw=read", "--do_verify=1"}, kScan));
  REQUIRE(r.ok);
  CHECK(r.results.jobs[0].read.io_bytes == 256u << 10);
  CHECK(r.verify_errors == 0);

  // One byte of the pattern damaged in the 8th interval of the 2nd block.
  {
    const int fd = ::open(path.c_str(), O_WRONLY);
    const unsigned char zero = 0;
    REQUIRE(::pwrite(fd, &zero, 1, (64 << 10) + 7 * 512 + 100) == 1);
    ::close(fd);
  }
  RunOutcome bad =
      fio_test::run_on_file(path, with({"--name=verify-phase", "--rw=read", "--do_verify=1"}, kScan));
  REQUIRE(bad.ok);
  CHECK(bad.verify_errors == 1);
  CHECK_THAT(bad.results.jobs[0].error_text,
             Catch::StartsWith("verify: pattern mismatch at byte 100 (want 0xaa got 0x00) at offset 69120"));
}

TEST_CASE("fio verify=pattern: blocks of the pattern alone, run on from the start of the write",
          "[verify][fio]") {
  const uint8_t abc[] = {'a', 'b', 'c'};
  const VerifyPattern pattern{abc, 3};
  std::vector<unsigned char> buf(4096, 0);
  // No headers: byte p of the write is "abc"[p % 3] (fio's fill_verify_pattern
  // over the whole buffer), whatever the 512-byte verify interval.
  verify_fill_write(VerifyKind::pattern, buf.data(), 4096, 512, 0, 1, pattern);
  for (size_t p = 0; p < buf.size(); ++p) REQUIRE(buf[p] == abc[p % 3]);
  // Block k (512 bytes at 512k) starts at pattern byte 512k % 3.
  for (uint32_t k = 0; k < 8; ++k) {
    const VerifyPattern at{abc, 3, (512 * k) % 3};
    INFO("block " << k);
    CHECK(verify_check(VerifyKind::pattern, buf.data() + 512 * k, 512, 512 * k, at).ok);
  }
  CHECK_FALSE(verify_check(VerifyKind::pattern, buf.data() + 512, 512, 512, pattern).ok);  // wrong phase
  // Byte 109 of block 2 overwritten with 'X' (0x58) where 'c' (0x63) was:
  // (1024 + 109) % 3 == 2. fio: 0x58 ^ 0x63 = 0x3b has 5 bits set.
  buf[1024 + 109] = 'X';
  const VerifyResult bad =
      verify_check(VerifyKind::pattern, buf.data() + 1024, 512, 1024, {abc, 3, 1024 % 3});
  CHECK_FALSE(bad.ok);
  CHECK(bad.payload);
  CHECK(std::string(bad.reason) == "got pattern '58', wanted '63'. Bad bits 5; bad pattern block offset 109");
  std::vector<unsigned char> expected(512);
  verify_expected(VerifyKind::pattern, buf.data() + 1024, expected.data(), 512, 1024, {abc, 3, 1024 % 3});
  CHECK(expected[109] == 'c');
  CHECK(expected[0] == abc[1024 % 3]);
}

TEST_CASE("fio verify=pattern and verify_pattern: fio's verify modes", "[verify][fio][job_parser]") {
  auto one = [](std::vector<std::string> args) {
    auto r = parse_cli_job(with({"--name=x"}, args));
    INFO(rs::test::error_text(r));
    REQUIRE(r.ok());
    return r->jobs[0];
  };
  CHECK(one({"--verify=pattern", "--verify_pattern=0xdeadbeef"}).verify == VerifyKind::pattern);
  // verify_pattern alone: fio's VERIFY_PATTERN, a header and the pattern.
  CHECK(one({"--verify_pattern=0xdeadbeef"}).verify == VerifyKind::meta);
  CHECK(one({"--verify=md5", "--verify_pattern=0xdeadbeef"}).verify == VerifyKind::md5);
  CHECK(one({"--verify=0", "--verify_pattern=0xdeadbeef"}).verify == VerifyKind::none);
  NullTarget target(1 << 20);
  std::vector<JobOptions> jobs{one({"--verify=pattern", "--size=64k", "--rw=write"})};
  CHECK(check_jobs(jobs, target).find("verify=pattern needs verify_pattern") != std::string::npos);
}
