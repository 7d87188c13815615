#include "renderer_setup.hpp"

#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QQuickWindow>
#include <QSGRendererInterface>

namespace rs::gui {

namespace {

// GL_RENDERER of a context on this display, "" when none can be made.
QString openGlRenderer() {
  QOpenGLContext ctx;
  if (!ctx.create()) return {};
  QOffscreenSurface surface;
  surface.setFormat(ctx.format());
  surface.create();
  if (!surface.isValid() || !ctx.makeCurrent(&surface)) return {};
  const auto* name = reinterpret_cast<const char*>(ctx.functions()->glGetString(GL_RENDERER));
  QString out = name ? QString::fromLatin1(name) : QString();
  ctx.doneCurrent();
  return out;
}

}  // namespace

QString chooseRenderer() {
  // Text as the desktop draws it (hinted glyphs, as KDE's Qt Quick apps
  // do), crisp at 1x; the software renderer always draws it so.
  QQuickWindow::setTextRenderType(QQuickWindow::NativeTextRendering);
  if (qEnvironmentVariableIsSet("QT_QUICK_BACKEND") || qEnvironmentVariableIsSet("QSG_RHI_BACKEND"))
    return QStringLiteral("as set by QT_QUICK_BACKEND / QSG_RHI_BACKEND");
  const QString gl = openGlRenderer();
  const bool cpu = gl.isEmpty() || gl.contains("llvmpipe", Qt::CaseInsensitive) ||
                   gl.contains("softpipe", Qt::CaseInsensitive) || gl.contains("swrast", Qt::CaseInsensitive) ||
                   gl.contains("Software Rasterizer", Qt::CaseInsensitive);
  if (!cpu) return QStringLiteral("GPU (%1)").arg(gl);
  QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
  return gl.isEmpty() ? QStringLiteral("Qt Quick software (no OpenGL)")
                      : QStringLiteral("Qt Quick software (OpenGL is %1, a CPU rasterizer)").arg(gl);
}

}  // namespace rs::gui
