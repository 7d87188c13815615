// Shared helpers for the session tests: arrays of small sparse image files,
// created and closed (so opening one is an assemble), a bench spec from a
// command line, and mdadm --examine as text.
#pragma once
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "../../common/needs_tool.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "levels/levels.hpp"
#include "raid/array.hpp"
#include "session/array_session.hpp"
#include "workload/bench.hpp"

namespace rs::session::test {

using rs::test::TempDir;

inline void require_ok(const Status& s) {
  INFO((s ? std::string() : s.error().message));
  REQUIRE(s.ok());
}

// A new array of `disks` image files of `bytes` in `dir`, closed again.
inline std::vector<std::string> make_array(const TempDir& dir, int level, int disks,
                                           uint64_t bytes = 48ull << 20, const std::string& prefix = "m") {
  raid::CreateOptions o;
  o.level = level;
  o.raid_disks = disks;
  // The level's default layout; small chunks where it has chunks.
  if (levels::builtin().find(level)->chunked) o.chunk_bytes = 64 * 1024;
  o.create_files_bytes = bytes;
  std::vector<std::string> paths;
  for (int i = 0; i < disks; ++i) paths.push_back(dir.file(prefix + std::to_string(i) + ".img"));
  auto arr = raid::Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  require_ok((*arr)->close());
  return paths;
}

inline std::shared_ptr<ArraySession> open_session(const std::vector<std::string>& paths,
                                                  SessionOptions o = {}) {
  auto s = ArraySession::open(paths, {}, std::move(o));
  INFO((s ? std::string() : s.error().message));
  REQUIRE(s.ok());
  return *s;
}

inline workload::BenchSpec bench_spec(const std::vector<std::string>& args) {
  auto parsed = fio::parse_cli_job(args);
  INFO((parsed ? std::string() : parsed.error().message));
  REQUIRE(parsed.ok());
  workload::BenchSpec spec;
  spec.jobs = parsed->jobs;
  spec.global_options = parsed->global.given;
  return spec;
}

inline const char* mdadm_path() {
  for (const char* p : {"/sbin/mdadm", "/usr/sbin/mdadm"})
    if (rs::test::tool_installed(p)) return p;
  return "/sbin/mdadm";
}

// mdadm --examine's "Key : value" lines of one member.
inline std::map<std::string, std::string> mdadm_examine(const std::string& member) {
  const std::string cmd = std::string(mdadm_path()) + " --examine '" + member + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int rc = ::pclose(p);
  INFO(out);
  REQUIRE(rc == 0);
  std::map<std::string, std::string> kv;
  size_t at = 0;
  while (at < out.size()) {
    const size_t eol = std::min(out.find('\n', at), out.size());
    const std::string line = out.substr(at, eol - at);
    at = eol + 1;
    const size_t colon = line.find(" : ");
    if (colon == std::string::npos) continue;
    const size_t k0 = line.find_first_not_of(' ');
    kv[line.substr(k0, colon - k0)] = line.substr(colon + 3);
  }
  return kv;
}

}  // namespace rs::session::test
