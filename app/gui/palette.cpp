#include "palette.hpp"

#include <QApplication>

#include "app_settings.hpp"

namespace rs::gui {

QPalette schemePalette(bool dark) {
  QPalette p;
  const QColor window = dark ? QColor(0x20, 0x23, 0x26) : QColor(0xef, 0xf0, 0xf1);
  const QColor base = dark ? QColor(0x14, 0x16, 0x18) : QColor(0xfc, 0xfc, 0xfc);
  const QColor alt = dark ? QColor(0x1d, 0x1f, 0x22) : QColor(0xf7, 0xf7, 0xf7);
  const QColor text = dark ? QColor(0xfc, 0xfc, 0xfc) : QColor(0x23, 0x26, 0x29);
  const QColor button = dark ? QColor(0x29, 0x2c, 0x30) : QColor(0xfc, 0xfc, 0xfc);
  const QColor highlight(0x3d, 0xae, 0xe9);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, alt);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, button);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::Highlight, highlight);
  p.setColor(QPalette::HighlightedText, QColor(0xfc, 0xfc, 0xfc));
  p.setColor(QPalette::ToolTipBase, dark ? QColor(0x31, 0x36, 0x3b) : QColor(0xf7, 0xf7, 0xf7));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, dark ? QColor(0xa1, 0xa9, 0xb1) : QColor(0x70, 0x7d, 0x8a));
  p.setColor(QPalette::Mid, dark ? QColor(0x40, 0x45, 0x4b) : QColor(0xc0, 0xc3, 0xc6));
  p.setColor(QPalette::Dark, dark ? QColor(0x10, 0x12, 0x14) : QColor(0x88, 0x8e, 0x93));
  p.setColor(QPalette::Light, dark ? QColor(0x3b, 0x40, 0x45) : QColor(0xff, 0xff, 0xff));
  p.setColor(QPalette::Link, QColor(0x1d, 0x99, 0xf3));
  p.setColor(QPalette::Disabled, QPalette::Text, dark ? QColor(0x6e, 0x73, 0x78) : QColor(0xa0, 0xa4, 0xa8));
  p.setColor(QPalette::Disabled, QPalette::WindowText,
             dark ? QColor(0x6e, 0x73, 0x78) : QColor(0xa0, 0xa4, 0xa8));
  p.setColor(QPalette::Disabled, QPalette::ButtonText,
             dark ? QColor(0x6e, 0x73, 0x78) : QColor(0xa0, 0xa4, 0xa8));
  return p;
}

}  // namespace rs::gui

namespace rs::gui {

namespace {

// The desktop's palette as the platform theme gave it at start, and the
// scheme in use now (one per process: the application has one palette).
QPalette& desktopPalette() {
  static QPalette p = QApplication::palette();  // taken before the first change
  return p;
}
QString& current() {
  static QString s = QStringLiteral("system");
  return s;
}

void apply(const QString& scheme) {
  (void)desktopPalette();
  current() = scheme;
  QApplication::setPalette(scheme == "dark"    ? schemePalette(true)
                           : scheme == "light" ? schemePalette(false)
                                               : desktopPalette());
}

}  // namespace

ColorScheme::ColorScheme(QObject* parent) : QObject(parent) {}

QString ColorScheme::scheme() const {
  return current();
}

void ColorScheme::setScheme(const QString& scheme) {
  if (scheme != "system" && scheme != "light" && scheme != "dark") return;
  if (scheme == current()) return;
  apply(scheme);
  appSettings()->setValue("colorScheme", scheme);
  emit schemeChanged();
}

bool ColorScheme::dark() const {
  return QApplication::palette().color(QPalette::Window).lightness() < 128;
}

void ColorScheme::applyAtStart(const QString& forced) {
  (void)desktopPalette();
  const QString saved = appSettings()->value("colorScheme", "system").toString();
  const QString scheme = forced.isEmpty() ? saved : forced;
  if (scheme == "light" || scheme == "dark") apply(scheme);
}

}  // namespace rs::gui
