// Device profiles: the figures an emulated disk is built from, stored as JSON
// in resources/profiles/<name>.json and named after what the seeds measured.
//
// Parsing is strict so a typo cannot silently fall back to a default: an
// unknown or duplicated key, a value of the wrong type, a missing required
// key or a value out of range is an error whose message names the file (the
// `origin`), the key and the offending value.
//
// Keys (units in the name or below; "required" unless a default is given):
//   name, source (which seed figure the profile is calibrated to),
//   description = "", rotational (what the device reports, as
//   /sys/block/*/queue/rotational does: the read policies see this),
//   model = "hdd" if rotational else "ssd" (the timing model; a virtio disk
//   reports rotational but has no mechanics, so the two are separate),
//   seq_read_bw, seq_write_bw (bytes/s), base_read_latency_us,
//   base_write_latency_us, sub4k_write_penalty_us = 0, io_opt = 0 (bytes),
//   logical_block_size = 512, capacity_bytes (required for "hdd", else 0),
//   scale = 1 (0 < scale <= 1, multiplies bandwidths and IOPS).
//   "ssd" model only: read_iops, write_iops (4 KiB random, full parallelism),
//   parallelism (commands the device serves at once).
//   "hdd" model only: rpm, avg_seek_ms (seek over a third of the stroke, the
//   datasheet convention and the mean distance of uniformly random I/O),
//   track_to_track_ms, full_stroke_ms, ncq_depth = 1 (commands the drive
//   may reorder among; 1 = strictly in order).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/device_model.hpp"

namespace rs::io {

enum class TimingModel { Ssd, Hdd };

struct DeviceProfile {
  std::string name;
  std::string description;
  std::string source;
  std::string origin;  // the file it was read from (or the caller's label)

  bool rotational = false;
  TimingModel model = TimingModel::Ssd;

  double seq_read_bw = 0;   // bytes/s
  double seq_write_bw = 0;  // bytes/s
  double base_read_latency_us = 0;
  double base_write_latency_us = 0;
  double sub4k_write_penalty_us = 0;  // writes not covering whole 4 KiB units
  uint32_t io_opt = 0;                // bytes, 0 = none
  uint32_t logical_block_size = 512;
  uint64_t capacity_bytes = 0;  // seek distance reference (hdd)
  double scale = 1.0;

  // ssd model
  double read_iops = 0;
  double write_iops = 0;
  uint32_t parallelism = 0;

  // hdd model
  double rpm = 0;
  double avg_seek_ms = 0;
  double track_to_track_ms = 0;
  double full_stroke_ms = 0;
  uint32_t ncq_depth = 1;
};

// Checks the cross-field rules (ranges, seek curve shape, io_opt a multiple
// of the logical block size...) of a profile built or edited in code, e.g.
// after overriding `scale`. Returns false with *error set.
bool validate_profile(const DeviceProfile& p, std::string* error);

// Parses one profile from JSON text; `origin` names it in error messages.
std::optional<DeviceProfile> parse_profile(std::string_view json_text, const std::string& origin,
                                           std::string* error);
std::optional<DeviceProfile> load_profile_file(const std::string& path, std::string* error);

// Looks for <dir>/<name>.json in each dir in order; the file's "name" must
// equal `name`.
std::optional<DeviceProfile> find_profile(const std::string& name, const std::vector<std::string>& dirs,
                                          std::string* error);

// Every *.json in `dir`, sorted by name. A file that does not parse is
// reported in `errors` and does not hide the others.
struct ProfileList {
  std::vector<DeviceProfile> profiles;
  std::vector<std::string> errors;
};
ProfileList list_profiles(const std::string& dir);

// The timing model a profile describes, with `scale` applied.
std::unique_ptr<DeviceModel> make_model(const DeviceProfile& p);

}  // namespace rs::io
