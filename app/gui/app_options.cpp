#include "app_options.hpp"

namespace rs::gui {

QString appUsage() {
  return QStringLiteral(
      "usage: raidscope [--demo | MEMBER...] [--page=dashboard|tune|arrays|benchmark|history]\n"
      "                 [--screenshot=FILE.png [--after=SECONDS]] [--refresh-hz=N]\n"
      "                 [--color-scheme=light|dark] [--size=WIDTHxHEIGHT] [--profile-scale=F]\n"
      "                 [--start=seqread|randread|mixed|seqwrite]   (with MEMBER...: run it once open)\n"
      "Without arguments: the demo (a RAID1 of two image files under ~/.local/share/raidscope/demo,\n"
      "emulated as two different disks, with a sequential read running).\n"
      "--screenshot renders the page with live data for --after seconds (default 4), saves it, exits.\n");
}

bool parseAppOptions(const QStringList& args, AppOptions& o, QString* error) {
  auto fail = [&](const QString& m) {
    *error = m;
    return false;
  };
  for (const QString& a : args) {
    const QString value = a.section('=', 1);
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--demo") {
      o.demo = true;
    } else if (a.startsWith("--page=")) {
      if (!QStringList{"dashboard", "tune", "arrays", "benchmark", "history"}.contains(value))
        return fail("--page=" + value + ": one of dashboard, tune, arrays, benchmark, history");
      o.page = value;
    } else if (a.startsWith("--screenshot=")) {
      if (value.isEmpty()) return fail("--screenshot needs a file name");
      o.screenshot = value;
    } else if (a.startsWith("--after=")) {
      bool ok = false;
      o.after_s = value.toDouble(&ok);
      if (!ok || o.after_s < 0 || o.after_s > 3600) return fail("--after=" + value + ": seconds, 0..3600");
    } else if (a.startsWith("--refresh-hz=")) {
      bool ok = false;
      o.refresh_hz = value.toInt(&ok);
      if (!ok || o.refresh_hz < 1 || o.refresh_hz > 50) return fail("--refresh-hz=" + value + ": 1..50");
    } else if (a.startsWith("--profile-scale=")) {
      bool ok = false;
      o.profile_scale = value.toDouble(&ok);
      if (!ok || !(o.profile_scale > 0 && o.profile_scale <= 1))
        return fail("--profile-scale=" + value + ": a number above 0 and at most 1");
    } else if (a.startsWith("--start=")) {
      if (!QStringList{"seqread", "randread", "mixed", "seqwrite"}.contains(value))
        return fail("--start=" + value + ": one of seqread, randread, mixed, seqwrite");
      o.start = value;
    } else if (a.startsWith("--color-scheme=")) {
      if (value != "light" && value != "dark") return fail("--color-scheme=" + value + ": light or dark");
      o.color_scheme = value;
    } else if (a.startsWith("--size=")) {
      const auto wh = value.split('x');
      bool ok1 = false, ok2 = false;
      const int w = wh.size() == 2 ? wh[0].toInt(&ok1) : 0, h = wh.size() == 2 ? wh[1].toInt(&ok2) : 0;
      if (!ok1 || !ok2 || w < 640 || h < 480 || w > 8000 || h > 8000)
        return fail("--size=" + value + ": WIDTHxHEIGHT, at least 640x480");
      o.size = {w, h};
    } else if (a.startsWith("-")) {
      return fail("unknown option " + a + " (see --help)");
    } else {
      o.members << a;
    }
  }
  if (o.demo && !o.members.isEmpty())
    return fail("--demo opens its own array: give either --demo or members");
  if (!o.start.isEmpty() && o.members.isEmpty()) return fail("--start needs the array's members");
  if (o.members.isEmpty()) o.demo = true;
  return true;
}

}  // namespace rs::gui
