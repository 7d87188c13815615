// log_store_compressed and --inflate-log: a log stored as NAME.fz in zlib
// chunks of log_compression bytes reads back as the same text.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "fio/log_compression.hpp"
#include "fio/option_table.hpp"

namespace fs = std::filesystem;
using namespace rs::fio;

namespace {

fs::path fz_temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("rs_fio_fz_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("a compressed log inflates to the text it was", "[fio_log]") {
  const fs::path dir = fz_temp_dir();
  const std::string log = (dir / "t_bw.log").string();
  std::string text;
  for (unsigned i = 0; i < 8000; ++i)  // t/log_compression.py's log: 8000 lines of 128 KiB writes
    text += std::to_string(i) + ", 1000, 1, 131072, " + std::to_string(uint64_t(i) * 131072) + ", 0\n";
  std::ofstream(log) << text;
  REQUIRE(store_log_compressed(log, 10 * 1024).ok());
  CHECK_FALSE(fs::exists(log));
  REQUIRE(fs::exists(log + ".fz"));
  CHECK(fs::file_size(log + ".fz") < text.size() / 2);  // it is compressed
  auto back = inflate_log(log + ".fz");
  REQUIRE(back.ok());
  CHECK(*back == text);
  // Cut short, or not ours: refused.
  fs::resize_file(log + ".fz", fs::file_size(log + ".fz") - 10);
  CHECK_FALSE(inflate_log(log + ".fz").ok());
  std::ofstream(log + ".txt") << "plain text\n";
  CHECK_FALSE(inflate_log(log + ".txt").ok());
  CHECK_FALSE(inflate_log((dir / "missing.fz").string()).ok());
  fs::remove_all(dir);
}

TEST_CASE("log_compression and log_store_compressed are job options", "[fio_log]") {
  JobOptions job;
  REQUIRE(apply_option(job, "log_compression", "10K").ok());
  CHECK(job.log_compression == 10240);
  REQUIRE(apply_option(job, "log_store_compressed", "1").ok());
  CHECK(job.log_store_compressed);
}
