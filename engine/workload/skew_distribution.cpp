#include "workload/skew_distribution.hpp"

#include <algorithm>
#include <cmath>

namespace rs::workload {
namespace {

// fio computes zeta(n) over at most this many terms (lib/zipf.c ZIPF_MAX_GEN).
constexpr uint64_t kZipfMaxGen = 10'000'000;
// fio's gauss_next averages this many uniform draws (lib/gauss.c GAUSS_ITERS).
constexpr int kGaussIters = 12;

// double -> rank in [0, limit], safe for NaN and huge values.
uint64_t to_rank(double x, uint64_t limit) noexcept {
  if (!(x > 0.0)) return 0;
  if (x >= static_cast<double>(limit)) return limit;
  return static_cast<uint64_t>(x);
}

}  // namespace

SkewDistribution::SkewDistribution(Distribution kind, uint64_t n, double param, double center, Rng& rng)
    : kind_(kind), n_(std::max<uint64_t>(n, 1)) {
  switch (kind_) {
    case Distribution::zipf: {
      theta_ = param;
      rand_off_ = center < 0 ? rng.next() : static_cast<uint64_t>(static_cast<double>(n_) * center);
      zeta2_ = 1.0 + std::pow(0.5, theta_);
      const uint64_t terms = std::min(n_, kZipfMaxGen);
      for (uint64_t i = 0; i < terms; ++i) zetan_ += std::pow(1.0 / static_cast<double>(i + 1), theta_);
      alpha_ = 1.0 / (1.0 - theta_);
      eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n_), 1.0 - theta_)) / (1.0 - zeta2_ / zetan_);
      two_pow_ = std::pow(0.5, theta_);
      break;
    }
    case Distribution::pareto:
      rand_off_ = center < 0 ? rng.next() : static_cast<uint64_t>(static_cast<double>(n_) * center);
      pareto_pow_ = std::log(param) / std::log(1.0 - param);
      break;
    case Distribution::normal: {
      if (param != 0.0) {
        stddev_ = static_cast<uint64_t>(std::ceil(static_cast<double>(n_) * param / 100.0));
        stddev_ = std::min(stddev_, n_ / 2);
      }
      // fio: rand_off = n * (center - 0.5), taken modulo n here.
      if (center >= 0) {
        const auto n = static_cast<int64_t>(n_);
        auto off = static_cast<int64_t>(static_cast<double>(n_) * (center - 0.5)) % n;
        rand_off_ = static_cast<uint64_t>(off < 0 ? off + n : off);
      }
      break;
    }
    case Distribution::random:
    case Distribution::zoned:  // the offset generator draws zones itself
      break;
  }
}

uint64_t SkewDistribution::next(Rng& rng) noexcept {
  switch (kind_) {
    case Distribution::zipf:
      return next_zipf(rng);
    case Distribution::pareto:
      return next_pareto(rng);
    case Distribution::normal:
      return next_normal(rng);
    case Distribution::random:
    case Distribution::zoned:
      return rng.below(n_);
  }
  return 0;
}

uint64_t SkewDistribution::next_zipf(Rng& rng) noexcept {
  if (n_ <= 2) return rng.below(n_);  // fio's formula degenerates (eta is 0/0)
  const double u = rng.unit();
  const double z = u * zetan_;
  uint64_t val;
  if (z < 1.0)
    val = 1;
  else if (z < 1.0 + two_pow_)
    val = 2;
  else
    val = 1 + to_rank(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_), n_);
  return (spread(val - 1) + rand_off_) % n_;
}

uint64_t SkewDistribution::next_pareto(Rng& rng) noexcept {
  const double u = rng.unit();
  const uint64_t rank = to_rank(static_cast<double>(n_ - 1) * std::pow(u, pareto_pow_), n_ - 1);
  return (spread(rank) + rand_off_) % n_;
}

uint64_t SkewDistribution::next_normal(Rng& rng) noexcept {
  uint64_t sum = 0;
  for (int i = 0; i < kGaussIters; ++i) sum += rng.below(n_ + 1);
  sum = (sum + kGaussIters - 1) / kGaussIters;
  if (stddev_) {
    // fio gauss_dev: uniform in [-stddev/2, stddev/2), halved until the
    // result stays inside [0, n).
    auto dev = static_cast<int64_t>(rng.below(stddev_)) - static_cast<int64_t>(stddev_ / 2);
    while (dev != 0 && (static_cast<int64_t>(sum) + dev < 0 || sum + static_cast<uint64_t>(dev) >= n_))
      dev /= 2;
    sum += static_cast<uint64_t>(dev);
  }
  return (spread(sum) + rand_off_) % n_;
}

}  // namespace rs::workload
