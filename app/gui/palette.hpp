// Light and dark palettes (Breeze's colours), and the colour scheme the
// user picks in the window: the desktop's (the default: the palette the
// platform theme gave at start), light or dark. The choice is kept in the
// settings; --color-scheme overrides it for one start.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPalette>

namespace rs::gui {

QPalette schemePalette(bool dark);

class ColorScheme : public QObject {
  Q_OBJECT
  QML_ELEMENT
  // "system" (the desktop's), "light" or "dark".
  Q_PROPERTY(QString scheme READ scheme WRITE setScheme NOTIFY schemeChanged)
  // The palette in use is a dark one (the desktop's may be too).
  Q_PROPERTY(bool dark READ dark NOTIFY schemeChanged)

 public:
  explicit ColorScheme(QObject* parent = nullptr);
  QString scheme() const;
  void setScheme(const QString& scheme);
  bool dark() const;

  // At start, before any window: remembers the desktop's palette and
  // applies the scheme saved in the settings, or `forced` ("light",
  // "dark") for this start only.
  static void applyAtStart(const QString& forced);

 signals:
  void schemeChanged();
};

}  // namespace rs::gui
