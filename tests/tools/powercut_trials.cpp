// rs_powercut_trials: randomized power cuts (powercut_trial.hpp says what a
// trial records, how a cut is made and what it checks).
//
//   rs_powercut_trials CUTS [--seed=N] [--shape=TEXT] [--cuts-per-run=N] [--keep=DIR]
//
// Spreads CUTS over the shapes (RAID1 x2, RAID10 n2/f2 x4, RAID5 x4, RAID6 x5, each
// with and without a write-intent bitmap; --shape keeps those whose name
// contains TEXT), recording a new run every --cuts-per-run cuts (default 8)
// and cutting it at random event indices. Prints one line per shape and a
// total: cuts, cuts that failed, blocks with wrong data (and of them blocks
// that lost acknowledged-and-flushed data), cuts whose check found
// mismatches, blocks a read without one member returned differently, and
// cuts where the array did not come back. --keep copies the members of each
// failed cut there. Exit status: 0 every cut passed, 1 some failed, 2 usage.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "powercut_trial.hpp"

namespace {

using rs::powercut::CutOutcome;
using rs::powercut::Recording;
using rs::powercut::Shape;

struct Tally {
  uint64_t cuts = 0, failed = 0, wrong_blocks = 0, lost_blocks = 0, lost_cuts = 0, mismatch_cuts = 0,
           mismatch_sectors = 0, degraded_blocks = 0, degraded_cuts = 0, refused = 0;
  void add(const CutOutcome& o) {
    ++cuts;
    failed += o.failed();
    wrong_blocks += o.wrong_blocks;
    lost_blocks += o.lost_blocks;
    lost_cuts += o.lost_blocks > 0;
    mismatch_cuts += o.mismatches > 0;
    mismatch_sectors += o.mismatches;
    degraded_blocks += o.degraded_wrong;
    degraded_cuts += o.degraded_wrong > 0;
    refused += !o.refused.empty();
  }
  Tally& operator+=(const Tally& o) {
    cuts += o.cuts;
    failed += o.failed;
    wrong_blocks += o.wrong_blocks;
    lost_blocks += o.lost_blocks;
    lost_cuts += o.lost_cuts;
    mismatch_cuts += o.mismatch_cuts;
    mismatch_sectors += o.mismatch_sectors;
    degraded_blocks += o.degraded_blocks;
    degraded_cuts += o.degraded_cuts;
    refused += o.refused;
    return *this;
  }
  void print(const std::string& name) const {
    std::printf(
        "%-22s %5llu cuts %5llu failed | wrong blocks %4llu (lost flushed %4llu in %3llu cuts) | "
        "mismatch cuts %3llu (%llu sectors) | degraded-read blocks %4llu in %3llu cuts | refused %llu\n",
        name.c_str(), (unsigned long long)cuts, (unsigned long long)failed, (unsigned long long)wrong_blocks,
        (unsigned long long)lost_blocks, (unsigned long long)lost_cuts, (unsigned long long)mismatch_cuts,
        (unsigned long long)mismatch_sectors, (unsigned long long)degraded_blocks,
        (unsigned long long)degraded_cuts, (unsigned long long)refused);
  }
};

// A scratch directory, removed with its contents.
struct Scratch {
  std::string path;
  explicit Scratch(const std::string& parent) {
    std::string tmpl = parent + "/raidscope-powercut.XXXXXX";
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

// Cut images in memory when /dev/shm takes them (no disk wear; the array
// then runs buffered there, which the checks do not care about).
std::string cut_parent() {
  return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

int usage() {
  std::fprintf(stderr,
               "usage: rs_powercut_trials CUTS [--seed=N] [--shape=TEXT] [--cuts-per-run=N] [--keep=DIR]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  char* end = nullptr;
  const unsigned long long cuts = std::strtoull(argv[1], &end, 10);
  if (*end || cuts == 0) return usage();
  uint64_t seed = 1;
  unsigned per_run = 8;
  std::string only, keep;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--seed=", 0) == 0)
      seed = std::strtoull(a.c_str() + 7, nullptr, 0);
    else if (a.rfind("--shape=", 0) == 0)
      only = a.substr(8);
    else if (a.rfind("--cuts-per-run=", 0) == 0)
      per_run = unsigned(std::max(1ul, std::strtoul(a.c_str() + 15, nullptr, 10)));
    else if (a.rfind("--keep=", 0) == 0)
      keep = a.substr(7);
    else
      return usage();
  }
  std::vector<Shape> shapes;
  for (const Shape& s : rs::powercut::all_shapes())
    if (only.empty() || s.name.find(only) != std::string::npos) shapes.push_back(s);
  if (shapes.empty()) return std::fprintf(stderr, "no shape matches '%s'\n", only.c_str()), 2;

  Scratch work("/tmp"), cutdir(cut_parent());
  if (work.path.empty() || cutdir.path.empty()) return std::perror("mkdtemp"), 1;
  std::vector<Tally> tally(shapes.size());
  std::vector<std::unique_ptr<Recording>> current(shapes.size());
  std::vector<unsigned> used(shapes.size(), 0);
  std::mt19937_64 rng(seed);
  for (unsigned long long n = 0; n < cuts; ++n) {
    const size_t si = n % shapes.size();
    if (!current[si] || used[si] == per_run) {
      const std::string dir = work.path + "/shape" + std::to_string(si);  // its base images live on
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
      auto rec = rs::powercut::record(shapes[si], seed * 1000003 + n, dir);
      if (!rec) {
        std::fprintf(stderr, "%s: recording failed: %s\n", shapes[si].name.c_str(),
                     rec.error().message.c_str());
        return 1;
      }
      current[si] = std::make_unique<Recording>(std::move(*rec));
      used[si] = 0;
    }
    ++used[si];
    const Recording& rec = *current[si];
    const size_t cut = 1 + size_t(rng() % rec.log->size());
    const CutOutcome o = rs::powercut::check_cut(rec, cut, rng, cutdir.path);
    tally[si].add(o);
    if (o.failed()) {
      std::fprintf(stderr, "%s (run seed %llu%s) cut at event %zu of %zu: %s%s\n", shapes[si].name.c_str(),
                   (unsigned long long)rec.seed, rec.junk ? ", junk members" : "", cut, rec.log->size(),
                   o.refused.empty() ? "" : ("did not come back: " + o.refused + "; ").c_str(),
                   o.detail.c_str());
      if (!keep.empty()) {
        const std::string to = keep + "/cut-" + std::to_string(n);
        std::filesystem::create_directories(to);
        for (auto& f : std::filesystem::directory_iterator(cutdir.path))
          std::filesystem::copy_file(f.path(), to + "/" + f.path().filename().string(),
                                     std::filesystem::copy_options::overwrite_existing);
      }
    }
  }
  Tally total;
  for (size_t i = 0; i < shapes.size(); ++i) {
    tally[i].print(shapes[i].name);
    total += tally[i];
  }
  total.print("total");
  return total.failed ? 1 : 0;
}
