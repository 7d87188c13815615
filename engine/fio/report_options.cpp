#include "fio/report_options.hpp"

#include <array>
#include <string>

#include "base/printable.hpp"

namespace rs::fio::opt {

Status apply_unified_rw_reporting(workload::JobOptions& job, std::string_view value) {
  // fio's posval order: the names, then the boolean-era numbers they replaced.
  constexpr std::array<std::string_view, 6> kValues = {"none", "mixed", "both", "0", "1", "2"};
  for (size_t i = 0; i < kValues.size(); ++i)
    if (value == kValues[i]) {
      job.unified_rw_reporting = unsigned(i % 3);
      return {};
    }
  return make_error(Errc::invalid_argument, "unified_rw_reporting: " + quoted_printable(value) +
                                                " is not none, mixed or both (or 0, 1, 2)");
}

}  // namespace rs::fio::opt
