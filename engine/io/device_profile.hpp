// Device profiles: the figures an emulated disk is built from, stored as JSON
// in resources/profiles/<name>.json and named after what the seeds measured.
//
// Parsing is strict so a typo cannot silently fall back to a default: an
// unknown or duplicated key, a value of the wrong type, a missing required
// key or a value out of range is an error whose message names the file (the
// `origin`), the key and the offending value.
//
// Keys (units in the name or below; "required" unless a default is given):
//   name, description = "",
//   sources: an object naming, for every other key the file sets, where its
//     value comes from (a datasheet, a published measurement, or a seed's
//     "before" figure used as the device's solo calibration). A key without
//     a source, or a source for a key the file does not set, is an error.
//   rotational (what the device reports, as /sys/block/*/queue/rotational
//   does: the read policies see this), model = "hdd" if rotational else
//   "ssd" (the timing model; a virtio disk reports rotational but has no
//   mechanics, so the two are separate), seq_read_bw, seq_write_bw
//   (bytes/s), base_read_latency_us, base_write_latency_us,
//   sub4k_write_penalty_us = 0, io_opt = 0 (bytes), logical_block_size = 512,
//   capacity_bytes (the whole device: an array member is this big, and the
//   hdd model's seek distances are fractions of it),
//   scale = 1 (0 < scale <= 1, multiplies bandwidths and IOPS).
//   Block layer in front of the device (block_layer.hpp): max_sectors_kb =
//   1280 (requests are split at this size and merged up to it),
//   queue_depth = 32 (requests the device holds at once: its tags),
//   nr_requests = 2 x min(queue_depth, 128) with a scheduler, queue_depth
//   without (requests the scheduler queue holds before submitters wait),
//   scheduler = "none" ("none": dispatch in arrival order; "mq-deadline":
//   in ascending sector order, one sweep after another).
//   "ssd" model only: read_iops, write_iops (the controller's command
//   ceilings), parallelism (commands the device serves at once), dies = 1,
//   die_page_bytes = 16384 (the unit striped over the dies), die_read_us = 0,
//   die_write_us = 0 (time a die is busy per page; 0: dies never limit).
//   "hdd" model only: rpm, avg_seek_ms (seek over a third of the stroke, the
//   datasheet convention and the mean distance of uniformly random I/O),
//   track_to_track_ms, full_stroke_ms, ncq_depth = 1 (commands the drive
//   may reorder among; 1 = strictly in order), readahead_bytes = 0 (how far
//   the drive reads ahead into its cache while it has nothing queued).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "io/device_model.hpp"

namespace rs::io {

enum class TimingModel { Ssd, Hdd };
enum class Scheduler { None, MqDeadline };

struct DeviceProfile {
  std::string name;
  std::string description;
  std::map<std::string, std::string> sources;  // key -> where its value comes from
  std::string origin;                          // the file it was read from (or the caller's label)

  bool rotational = false;
  TimingModel model = TimingModel::Ssd;

  double seq_read_bw = 0;   // bytes/s
  double seq_write_bw = 0;  // bytes/s
  double base_read_latency_us = 0;
  double base_write_latency_us = 0;
  double sub4k_write_penalty_us = 0;  // writes not covering whole 4 KiB units
  uint32_t io_opt = 0;                // bytes, 0 = none
  uint32_t logical_block_size = 512;
  uint64_t capacity_bytes = 0;  // the whole device
  double scale = 1.0;

  // block layer
  uint32_t max_sectors_kb = 1280;
  uint32_t queue_depth = 32;
  uint32_t nr_requests = 0;  // 0: the kernel's default for the scheduler (see above)
  Scheduler scheduler = Scheduler::None;

  // ssd model
  double read_iops = 0;
  double write_iops = 0;
  uint32_t parallelism = 0;
  uint32_t dies = 1;
  uint32_t die_page_bytes = 16384;
  double die_read_us = 0;
  double die_write_us = 0;

  // hdd model
  double rpm = 0;
  double avg_seek_ms = 0;
  double track_to_track_ms = 0;
  double full_stroke_ms = 0;
  uint32_t ncq_depth = 1;
  uint64_t readahead_bytes = 0;

  // nr_requests with the default resolved.
  uint32_t effective_nr_requests() const;
};

// Checks the cross-field rules (ranges, seek curve shape, io_opt a multiple
// of the logical block size...) of a profile built or edited in code, e.g.
// after overriding `scale`. Errc::invalid_argument naming the profile, the
// key, its value and the rule.
Status validate_profile(const DeviceProfile& p);

// Parses one profile from JSON text; `origin` names it in error messages
// (Errc::invalid_argument: not JSON, an unknown or duplicated key, a value
// of the wrong type or outside its rule).
Result<DeviceProfile> parse_profile(std::string_view json_text, const std::string& origin);
// As parse_profile; Errc::not_found when the file cannot be opened.
Result<DeviceProfile> load_profile_file(const std::string& path);

// Looks for <dir>/<name>.json in each dir in order; the file's "name" must
// equal `name`. Errc::not_found naming the directories looked in.
Result<DeviceProfile> find_profile(const std::string& name, const std::vector<std::string>& dirs);

// Every *.json in `dir`, sorted by name. A file that does not parse is
// reported in `errors` and does not hide the others.
struct ProfileList {
  std::vector<DeviceProfile> profiles;
  std::vector<std::string> errors;
};
ProfileList list_profiles(const std::string& dir);

// The emulated device a profile describes: its timing model (hdd or ssd)
// behind its block layer, with `scale` applied; validate_profile()'s error
// for a profile that does not validate.
Result<std::unique_ptr<DeviceModel>> make_model(const DeviceProfile& p);
// The timing model alone, without the block layer (for tests of the model).
Result<std::unique_ptr<DeviceModel>> make_timing_model(const DeviceProfile& p);

}  // namespace rs::io
