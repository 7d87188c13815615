// Picks Qt Quick's renderer before the first window is made.
//
// Qt Quick draws with the GPU by default (OpenGL here). Without a GPU, as
// under Xvfb, in most VMs and over remote X, OpenGL is Mesa's llvmpipe: a
// CPU rasterizer that redraws the whole window every frame, which cost the
// live dashboard three times more CPU than Qt Quick's own software
// renderer, which redraws only what changed (tests/gui/bench_gui.sh). So
// when the OpenGL renderer is a software one, the software renderer is
// used instead. QT_QUICK_BACKEND or QSG_RHI_BACKEND set by the user win.
#pragma once
#include <QString>

namespace rs::gui {

// Call after the QGuiApplication exists, before any window. Returns what
// was chosen and why, for --verbose output and the benchmark.
QString chooseRenderer();

}  // namespace rs::gui
