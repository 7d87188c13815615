// fio's skewed block distributions (random_distribution=zipf, pareto,
// normal), following fio 3.33's lib/zipf.c and lib/gauss.c step by step with
// our PRNG in place of tausworthe:
//  - zipf:theta draws a rank by Gray et al.'s quick zipf approximation over
//    n ranks (zeta(n) summed over at most 10M terms, as fio caps it);
//  - pareto:h draws rank (n-1) * u^(log h / log(1-h));
//  - normal:dev averages 12 uniform draws over [0, n] (about N(n/2, n/12)),
//    then adds a uniform jitter of dev% of n (fio's "deviation").
// Then, as fio does, the rank goes through fio_hash_u64 and a rotation
// (random, or set by the center parameter) modulo n. So hot blocks are
// scattered over the region, not packed together: with fio, even `normal`
// does not put its hot blocks at the middle of the file (checked with fio's
// write_iolog: the middle 20% of a file gets 20% of normal's I/Os).
//
// next() is allocation-free; construction of zipf is O(min(n, 10M)).
#pragma once
#include <cstdint>

#include "workload/job_options.hpp"
#include "workload/rand.hpp"

namespace rs::workload {

class SkewDistribution {
 public:
  // kind: zipf, pareto or normal. n: blocks, >= 1. param and center as in
  // JobOptions (center -1: fio's default). `rng` supplies the random
  // rotation when no center is given.
  SkewDistribution(Distribution kind, uint64_t n, double param, double center, Rng& rng);

  // A block in [0, n).
  uint64_t next(Rng& rng) noexcept;
  // fio's zipf_disable_hash / gauss_disable_hash (its file choice): ranks
  // go straight to the rotation, so the hottest ones are neighbours.
  void disable_hash() noexcept { hash_ = false; }

 private:
  uint64_t next_zipf(Rng& rng) noexcept;
  uint64_t next_pareto(Rng& rng) noexcept;
  uint64_t next_normal(Rng& rng) noexcept;

  Distribution kind_;
  uint64_t n_;
  uint64_t rand_off_ = 0;
  bool hash_ = true;
  uint64_t spread(uint64_t rank) const noexcept { return hash_ ? fio_hash_u64(rank) : rank; }
  // zipf
  double theta_ = 0, zetan_ = 0, zeta2_ = 0, alpha_ = 0, eta_ = 0, two_pow_ = 0;
  // pareto
  double pareto_pow_ = 0;
  // normal
  uint64_t stddev_ = 0;
};

}  // namespace rs::workload
