// Emulated disks on an open array: the device_profile tunable (which disk a
// member emulates, switchable while I/O runs) and the scale that slows
// every emulated member alike so together they fit the host disk.
#include <algorithm>

#include "session/array_session.hpp"
#include "session/command_impl.hpp"

namespace rs::session {

void ArraySession::register_profile_tunable() {
  std::vector<std::string> names = {"none"};
  for (const auto& dir : options_.profile_dirs)
    for (const auto& p : io::list_profiles(dir).profiles)
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
  const size_t n = size_t(array_->raid_disks());
  profile_names_.assign(n, "none");
  profiles_.assign(n, std::nullopt);
  telemetry::TunableSpec spec{std::string(kDeviceProfile.name),
                              telemetry::TunableType::choice,
                              0,
                              0,
                              names,
                              "",
                              "the disk this member emulates (resources/profiles; none: the real device)"};
  spec.per_member = true;
  raid::Array* arr = array_.get();
  // The registry's calls run on the setter's thread (the command thread, or
  // a client setting it directly); profiles_mutex_ guards the names.
  arr->tunables().add(
      spec,
      [this](int m) {
        std::lock_guard lock(profiles_mutex_);
        return profile_names_[size_t(m)];
      },
      [this, arr](int m, const telemetry::TunableValue& v) -> Status {
        std::optional<io::DeviceProfile> profile;
        if (v.text != "none") {
          auto found = io::find_profile(v.text, options_.profile_dirs);
          if (!found) return found.take_error();
          profile = std::move(*found);
        }
        return apply_profile(*arr, m, std::move(profile), v.text);
      });
}

Status ArraySession::apply_profile(raid::Array& array, int slot, std::optional<io::DeviceProfile> profile,
                                   const std::string& label) {
  double scale;
  {
    std::lock_guard lock(profiles_mutex_);
    scale = options_.profile_scale;
  }
  std::shared_ptr<io::DeviceModel> model;
  if (profile) {
    io::DeviceProfile scaled = *profile;
    scaled.scale *= scale;
    auto made = io::make_model(scaled);
    if (!made) return make_error(Errc::invalid_argument, "profile " + label + ": " + made.error().message);
    model = std::move(*made);
  }
  if (Status st = array.set_member_model(slot, std::move(model), label); !st) return st;
  std::lock_guard lock(profiles_mutex_);
  profile_names_[size_t(slot)] = label;
  profiles_[size_t(slot)] = std::move(profile);
  return {};
}

Pending<Status> ArraySession::set_member_profile(int slot, io::DeviceProfile profile) {
  return command<Status>("member profile", [this, slot, profile](raid::Array& a) -> Status {
    if (slot >= a.raid_disks())
      return make_error(Errc::invalid_argument, "member " + std::to_string(slot) + " is beyond the array's " +
                                                    std::to_string(a.raid_disks()) + " members");
    const raid::TableRef t = a.table();
    for (int i = 0; i < a.raid_disks(); ++i)
      if ((slot < 0 || slot == i) && (*t)[i].dev)
        if (Status st = apply_profile(a, i, profile, profile.name); !st) return st;
    return {};
  });
}

Pending<Status> ArraySession::set_member_profile(int slot, std::string profile) {
  // Through the tunable: its checks, its event, one code path.
  if (slot >= 0) return set_tunable(kDeviceProfile.at(slot), std::move(profile));
  return command<Status>("member profile", [profile](raid::Array& a) -> Status {
    const raid::TableRef t = a.table();
    for (int i = 0; i < a.raid_disks(); ++i)
      if ((*t)[i].dev)
        if (Status st = a.tunables().set(kDeviceProfile.at(i), profile); !st) return st;
    return {};
  });
}

Pending<Status> ArraySession::set_profile_scale(double scale) {
  return command<Status>("profile scale", [this, scale](raid::Array& a) -> Status {
    if (!(scale > 0 && scale <= 1))
      return make_error(Errc::invalid_argument, "the profile scale must be above 0 and at most 1");
    std::vector<std::optional<io::DeviceProfile>> profiles;
    std::vector<std::string> names;
    {
      std::lock_guard lock(profiles_mutex_);
      if (options_.profile_scale == scale) return {};
      options_.profile_scale = scale;
      profiles = profiles_;
      names = profile_names_;
    }
    // Every emulated member at the new speed, at once.
    for (size_t i = 0; i < profiles.size(); ++i)
      if (profiles[i])
        if (Status st = apply_profile(a, int(i), profiles[i], names[i]); !st) return st;
    return {};
  });
}

}  // namespace rs::session
