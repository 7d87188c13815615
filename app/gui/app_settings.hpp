// The app's settings file ($XDG_CONFIG_HOME/RaidScope/raidscope.conf): the
// colour scheme, the user's presets, the arrays it knows and the tunables
// set on each. One place, so tests move it with XDG_CONFIG_HOME.
#pragma once
#include <QSettings>
#include <memory>

namespace rs::gui {

std::unique_ptr<QSettings> appSettings();

}  // namespace rs::gui
