#include "app_settings.hpp"

namespace rs::gui {

std::unique_ptr<QSettings> appSettings() {
  return std::make_unique<QSettings>(QSettings::IniFormat, QSettings::UserScope, "RaidScope", "raidscope");
}

}  // namespace rs::gui
