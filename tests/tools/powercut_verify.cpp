// One cut of a power-cut trial: the members as the media could hold them,
// the array brought back (resync included), and the checks of
// powercut_trial.hpp.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "levels/levels.hpp"
#include "powercut_trial.hpp"
#include "raid/array.hpp"
#include "raid/sync_io.hpp"

namespace rs::powercut {
namespace {

constexpr uint64_t kMagic = 0x7063757472736374ull;  // "tcsrtucp"

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Member images at the cut, in `dir`.
Result<std::vector<std::string>> rebuild_members(const Recording& rec, size_t cut, std::mt19937_64& rng,
                                                 const std::string& dir) {
  std::vector<std::string> paths;
  std::vector<int> fds;
  std::error_code ec;
  for (size_t i = 0; i < rec.base.size(); ++i) {
    paths.push_back(dir + "/m" + std::to_string(i) + ".img");
    if (!std::filesystem::copy_file(rec.base[i], paths.back(),
                                    std::filesystem::copy_options::overwrite_existing, ec))
      return make_error(Errc::io_error, paths.back() + ": " + ec.message());
  }
  // The log names the recording's paths: member i is the one ending in m<i>.img.
  std::vector<int> member_of(rec.log->devices().size(), -1);
  for (size_t d = 0; d < member_of.size(); ++d) {
    const std::string name = std::filesystem::path(rec.log->devices()[d]).filename();
    for (size_t i = 0; i < paths.size(); ++i)
      if (name == "m" + std::to_string(i) + ".img") member_of[d] = int(i);
  }
  for (const auto& p : paths) fds.push_back(::open(p.c_str(), O_WRONLY | O_CLOEXEC));
  bool ok = std::all_of(fds.begin(), fds.end(), [](int fd) { return fd >= 0; });
  rec.log->replay(cut, rng, [&](int device, uint64_t offset, const uint8_t* data, size_t length) {
    const int m = member_of[size_t(device)];
    if (m < 0 || ::pwrite(fds[size_t(m)], data, length, off_t(offset)) != ssize_t(length)) ok = false;
  });
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  if (!ok) return make_error(Errc::io_error, "could not rebuild the members in " + dir);
  return paths;
}

// The versions each sector of the region may hold at the cut: [floor, and
// any started version above it]; floor 0 means "what it held before" is
// allowed too.
struct SectorRule {
  uint64_t floor = 0;             // the newest acknowledged-and-flushed version
  std::vector<uint64_t> started;  // versions started before the cut
};

std::vector<SectorRule> sector_rules(const Recording& rec, size_t cut) {
  std::vector<SectorRule> rules(kRegionBytes / kSector);
  for (const ArrayWrite& w : rec.writes) {
    if (w.started >= cut) continue;
    for (uint64_t s = w.offset / kSector; s < (w.offset + w.length) / kSector; ++s) {
      rules[s].started.push_back(w.version);
      if (w.flushed < cut) rules[s].floor = std::max(rules[s].floor, w.version);
    }
  }
  return rules;
}

bool zeros(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// Checks what the whole array returns against the rules.
void check_contents(const Recording& rec, size_t cut, const std::vector<uint8_t>& data, CutOutcome& out) {
  const auto rules = sector_rules(rec, cut);
  for (uint64_t blk = 0; blk < kRegionBytes / kBlock; ++blk) {
    bool wrong = false, lost = false;
    for (uint64_t s = blk * (kBlock / kSector); s < (blk + 1) * (kBlock / kSector); ++s) {
      const uint8_t* p = data.data() + s * kSector;
      const SectorRule& r = rules[s];
      const int64_t v = read_stamp(p, rec.seed, s);
      bool ok;
      if (v > 0)
        ok = uint64_t(v) >= r.floor &&
             std::find(r.started.begin(), r.started.end(), uint64_t(v)) != r.started.end();
      else  // what it held before the workload: zeros, or (junk) anything but a stamp
        ok = v == 0 && r.floor == 0 && (rec.junk || zeros(p, kSector));
      if (!ok) {
        wrong = true;
        lost |= r.floor > 0;
        if (out.detail.size() < 400)
          out.detail += "sector " + std::to_string(s) + ": found version " + std::to_string(v) +
                        ", flushed " + std::to_string(r.floor) + "; ";
      }
    }
    out.wrong_blocks += wrong;
    out.lost_blocks += lost;
  }
}

// The array as it comes back after the cut: assembled, resynced, read, checked.
Result<std::vector<uint8_t>> bring_back(const std::vector<std::string>& paths, CutOutcome& out) {
  auto arr = raid::Array::assemble(levels::builtin(), paths);
  if (!arr) return arr.error();
  if (auto resync = (*arr)->resync_task())
    if (Status s = resync->wait(); !s) return s.error();
  std::vector<uint8_t> data(kRegionBytes);
  {
    raid::SyncIo sio(**arr);
    if (Status s = sio.read(0, data.data(), data.size()); !s) return s.error();
  }
  auto task = (*arr)->start_check(false);
  if (!task) return task.error();
  if (Status s = (*task)->wait(); !s) return s.error();
  out.mismatches = (*arr)->mismatch_cnt();
  if (Status s = (*arr)->close(); !s) return s.error();
  return data;
}

// Reads the region with member `left_out` missing; counts blocks that differ from `whole`.
Status read_without(const std::vector<std::string>& paths, size_t left_out, const std::vector<uint8_t>& whole,
                    CutOutcome& out) {
  std::vector<std::string> some = paths;
  some.erase(some.begin() + std::ptrdiff_t(left_out));
  raid::AssembleOptions o;
  o.run = true;
  o.read_only = true;
  auto arr = raid::Array::assemble(levels::builtin(), some, o);
  if (!arr) return arr.error();
  std::vector<uint8_t> data(kRegionBytes);
  raid::SyncIo sio(**arr);
  if (Status s = sio.read(0, data.data(), data.size()); !s) return s;
  for (uint64_t off = 0; off < kRegionBytes; off += kBlock)
    if (std::memcmp(data.data() + off, whole.data() + off, kBlock) != 0) {
      ++out.degraded_wrong;
      if (out.detail.size() < 400)
        out.detail += "without member " + std::to_string(left_out) + " block " +
                      std::to_string(off / kBlock) + " differs; ";
    }
  return {};
}

}  // namespace

void stamp(uint8_t* sector, uint64_t seed, uint64_t array_sector, uint64_t version) {
  const uint64_t head[4] = {kMagic, seed, array_sector, version};
  std::memcpy(sector, head, sizeof head);
  uint64_t x = mix(seed ^ mix(array_sector * 0x9e3779b97f4a7c15ull + version));
  for (uint32_t i = sizeof head; i < kSector; i += 8, x = mix(x)) std::memcpy(sector + i, &x, 8);
}

int64_t read_stamp(const uint8_t* sector, uint64_t seed, uint64_t array_sector) {
  uint64_t head[4];
  std::memcpy(head, sector, sizeof head);
  if (head[0] != kMagic || head[1] != seed) return 0;
  if (head[2] != array_sector || head[3] == 0 || head[3] > (uint64_t{1} << 40)) return -1;
  uint8_t expect[kSector];
  stamp(expect, seed, array_sector, head[3]);
  return std::memcmp(expect, sector, kSector) == 0 ? int64_t(head[3]) : -1;
}

CutOutcome check_cut(const Recording& rec, size_t cut, std::mt19937_64& rng, const std::string& dir) {
  CutOutcome out;
  auto paths = rebuild_members(rec, cut, rng, dir);
  if (!paths) {
    out.refused = paths.error().message;
    return out;
  }
  auto whole = bring_back(*paths, out);
  if (!whole) {
    out.refused = whole.error().message;
    return out;
  }
  check_contents(rec, cut, *whole, out);
  for (size_t m = 0; m < paths->size(); ++m)
    if (Status s = read_without(*paths, m, *whole, out); !s) {
      out.refused = "without member " + std::to_string(m) + ": " + s.error().message;
      break;
    }
  return out;
}

}  // namespace rs::powercut
