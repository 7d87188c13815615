// raidscope's command line (documented in `raidscope --help`):
//   raidscope                      the demo (as --demo)
//   raidscope MEMBER...            open that array (nothing started)
//   --demo                         the demo array with a read workload running
//   --page=dashboard|tune|arrays|benchmark   the page shown first
//   --screenshot=FILE.png [--after=SECONDS]  render, save the window, exit
//   --refresh-hz=N                 GUI refresh rate (1..50, default 20)
//   --color-scheme=light|dark      override the system palette
//   --size=WxH                     window size (default 1280x860)
//   --profile-scale=F              slow every emulated disk by F (0 < F <= 1)
//   --start=WORKLOAD               with MEMBER...: start seqread|randread|mixed|seqwrite once open
#pragma once
#include <QSize>
#include <QString>
#include <QStringList>

namespace rs::gui {

struct AppOptions {
  bool demo = false;
  QStringList members;
  QString page = QStringLiteral("dashboard");
  QString screenshot;
  double after_s = 4;
  int refresh_hz = 20;
  QString color_scheme;  // "", "light", "dark"
  QSize size{1280, 860};
  double profile_scale = 0;
  QString start;
  bool help = false;
};

// Parses the arguments (without argv[0]); on bad usage returns false with
// a message naming the argument.
bool parseAppOptions(const QStringList& args, AppOptions& out, QString* error);
QString appUsage();

}  // namespace rs::gui
