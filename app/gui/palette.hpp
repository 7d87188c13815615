// Light and dark palettes for --color-scheme (Breeze's colours), used when
// the user overrides what the desktop's platform theme gives.
#pragma once
#include <QPalette>

namespace rs::gui {

QPalette schemePalette(bool dark);

}  // namespace rs::gui
