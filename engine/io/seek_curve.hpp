// Seek time as a function of distance for the rotational model.
//
// Datasheets give three figures: track-to-track, average (over a third of
// the full stroke, which is also the mean distance between two uniformly
// random positions) and full stroke. The actuator accelerates over short
// seeks and coasts over long ones, so seek time grows roughly with the
// square root of distance. The curve
//     t(d) = track_to_track + a*sqrt(d) + b*d,   d = distance / capacity
// passes through all three figures; it is kept only when it rises
// monotonically from track-to-track (a >= 0 and a/2 + b >= 0), which bounds
// the average to [t2t + F/3, t2t + 0.82*F] with F = full - t2t.
#pragma once
#include <cmath>
#include <optional>

namespace rs::io {

struct SeekCurve {
  double t2t_ms = 0, a_ms = 0, b_ms = 0;

  // sqrt(1/3) - 1/3: the sqrt term's excess over the linear one at d = 1/3.
  static constexpr double kSqrtThirdExcess = 0.57735026918962576 - 1.0 / 3.0;

  // Range avg_seek_ms must lie in for given t2t and full stroke.
  static double avg_min(double t2t, double full) { return t2t + (full - t2t) / 3.0; }
  static double avg_max(double t2t, double full) {
    return t2t + (full - t2t) * (1.0 / 3.0 + 2.0 * kSqrtThirdExcess);
  }

  static std::optional<SeekCurve> fit(double t2t, double avg, double full) {
    const double A = avg - t2t, F = full - t2t;
    if (t2t < 0 || F < 0) return std::nullopt;
    SeekCurve c;
    c.t2t_ms = t2t;
    c.a_ms = (A - F / 3.0) / kSqrtThirdExcess;
    c.b_ms = F - c.a_ms;
    // Small tolerance: profiles written at the bounds must not fail on rounding.
    const double eps = 1e-9 * (1.0 + F);
    if (c.a_ms < -eps || c.a_ms / 2.0 + c.b_ms < -eps) return std::nullopt;
    if (c.a_ms < 0) c.a_ms = 0;
    return c;
  }

  // Seek time over `d` (fraction of the full stroke, clamped to [0, 1]);
  // zero distance needs no seek.
  double ms(double d) const {
    if (d <= 0) return 0;
    if (d > 1) d = 1;
    return t2t_ms + a_ms * std::sqrt(d) + b_ms * d;
  }

  // Mean seek between two independent uniformly random positions: the
  // distance has density 2(1-d), so E[sqrt d] = 8/15 and E[d] = 1/3.
  double mean_random_ms() const { return t2t_ms + a_ms * (8.0 / 15.0) + b_ms / 3.0; }
};

}  // namespace rs::io
