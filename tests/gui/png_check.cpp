// rs_png_check A.png [B.png]: prints how many distinct colours A has (a
// blank or one-colour render has a handful) and, with B, the fraction of
// pixels that differ between A and B. Exit 1 when A has fewer than
// --min-colours (default 30) or, with B, when nothing differs.
#include <QCoreApplication>
#include <QImage>
#include <cstdio>
#include <set>

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);  // reading PNGs needs no display
  QStringList args = app.arguments().mid(1);
  int minColours = 30;
  for (int i = args.size() - 1; i >= 0; --i)
    if (args[i].startsWith("--min-colours=")) minColours = args.takeAt(i).mid(14).toInt();
  if (args.isEmpty() || args.size() > 2) {
    std::fprintf(stderr, "usage: rs_png_check [--min-colours=N] A.png [B.png]\n");
    return 2;
  }
  QImage a(args[0]);
  if (a.isNull()) {
    std::fprintf(stderr, "rs_png_check: cannot read %s\n", qPrintable(args[0]));
    return 1;
  }
  std::set<QRgb> colours;
  for (int y = 0; y < a.height(); y += 2)
    for (int x = 0; x < a.width(); x += 2) colours.insert(a.pixel(x, y));
  std::printf("%s: %dx%d, %zu colours\n", qPrintable(args[0]), a.width(), a.height(), colours.size());
  int status = int(colours.size()) < minColours;
  if (args.size() == 2) {
    QImage b(args[1]);
    int diff = 0, all = 0;
    if (b.size() == a.size())
      for (int y = 0; y < a.height(); y += 2)
        for (int x = 0; x < a.width(); x += 2, ++all) diff += a.pixel(x, y) != b.pixel(x, y);
    const double f = all ? double(diff) / all : 1.0;
    std::printf("%s vs %s: %.2f %% of pixels differ\n", qPrintable(args[0]), qPrintable(args[1]), 100 * f);
    if (f == 0) status = 1;
  }
  return status;
}
