#include "report/pdf_report.hpp"

#include <QBuffer>
#include <QFont>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QAbstractTextDocumentLayout>
#include <algorithm>
#include <cstdio>
#include <memory>

#include "report/outline.hpp"
#include "report/svg_chart.hpp"

namespace rs::report {

namespace {

constexpr int kDpi = 96;  // one device unit = one CSS pixel, as the SVG charts are drawn
const char* kFontFamily = "DejaVu Sans";

// The offscreen QGuiApplication a process without one gets for a render.
class OffscreenApp {
 public:
  OffscreenApp() {
    if (QGuiApplication::instance()) return;
    // The CLI never needs a display: offscreen whatever the environment says.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Qt's notes about the environment (no XDG_RUNTIME_DIR, ...) are not
    // the report's business; its errors still reach stderr.
    previous_ = qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& msg) {
      if (type == QtCriticalMsg || type == QtFatalMsg) fprintf(stderr, "Qt: %s\n", msg.toLocal8Bit().constData());
    });
    app_ = std::make_unique<QGuiApplication>(argc_, argv_);
  }
  ~OffscreenApp() {
    if (!app_) return;
    app_.reset();
    qInstallMessageHandler(previous_);
  }

 private:
  int argc_ = 1;
  char name_[16] = "raidscope-cli";
  char* argv_[2] = {name_, nullptr};
  std::unique_ptr<QGuiApplication> app_;
  QtMessageHandler previous_ = nullptr;
};

QString html_escape(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

// Lays blocks out top to bottom, starting a page when the next one does not fit.
class PageFlow {
 public:
  PageFlow(QPdfWriter& writer, QPainter& painter) : writer_(writer), painter_(painter) {
    const QRect page = writer.pageLayout().paintRectPixels(kDpi);
    width_ = page.width();
    height_ = page.height();
  }

  void title(const std::string& text) { text_block(text, 17, true, 10); }
  void heading(const std::string& text) {
    if (y_ > height_ * 0.8) new_page();  // a heading does not sit alone at a page's foot
    text_block(text, 13, true, 6);
  }
  void paragraph(const std::string& text) { text_block(text, 9.5, false, 8); }

  void table(const std::string& caption, const std::vector<std::vector<std::string>>& rows) {
    // As many rows as fit on this page (at least one), the rest on the next
    // with the header repeated.
    size_t next = 1;
    bool first = true;
    do {
      const std::string cap = first ? caption : caption + " (continued)";
      size_t end = std::min(next + 1, rows.size());
      auto doc = table_doc(cap, rows, next, end);
      if (doc->size().height() > height_ - y_ && y_ > 0) {
        new_page();
        doc = table_doc(cap, rows, next, end);
      }
      while (end < rows.size()) {
        auto bigger = table_doc(cap, rows, next, end + 1);
        if (bigger->size().height() > height_ - y_) break;
        doc = std::move(bigger);
        ++end;
      }
      draw(*doc);
      next = end;
      first = false;
      if (next < rows.size()) new_page();
    } while (next < rows.size());
    y_ += 6;
  }

  void chart(const Chart& c) {
    QSvgRenderer svg(QByteArray::fromStdString(c.svg));
    const double w = std::min<double>(width_, c.width);
    const double h = c.height * w / std::max(c.width, 1);
    if (y_ + h > height_ && y_ > 0) new_page();
    svg.render(&painter_, QRectF((width_ - w) / 2, y_, w, h));
    y_ += h + 10;
  }

 private:
  std::unique_ptr<QTextDocument> table_doc(const std::string& caption, const std::vector<std::vector<std::string>>& rows,
                                           size_t from, size_t to) {
    QString html = "<p style=\"font-weight:bold\">" + html_escape(caption) +
                   "</p><table border=\"1\" cellspacing=\"0\" cellpadding=\"3\" style=\"border-color:#999\">";
    // Figures stay on one line ("603.3 MB/s"); names and long text may wrap.
    auto row = [&](const std::vector<std::string>& r, bool head) {
      html += "<tr>";
      for (const auto& c : r)
        html += head ? "<th bgcolor=\"#eeeeee\" align=\"left\">" + html_escape(c) + "</th>"
                     : (c.size() <= 16 ? "<td style=\"white-space:nowrap\">" : "<td>") + html_escape(c) + "</td>";
      html += "</tr>";
    };
    if (!rows.empty()) row(rows[0], true);
    for (size_t i = from; i < to && i < rows.size(); ++i) row(rows[i], false);
    html += "</table>";
    auto doc = std::make_unique<QTextDocument>();
    doc->documentLayout()->setPaintDevice(&writer_);
    QFont font(kFontFamily);
    font.setPointSizeF(7.5);
    doc->setDefaultFont(font);
    doc->setDocumentMargin(0);
    doc->setTextWidth(width_);
    doc->setHtml(html);
    return doc;
  }

  void text_block(const std::string& text, double pt, bool bold, double after) {
    QTextDocument doc;
    doc.documentLayout()->setPaintDevice(&writer_);
    QFont f(kFontFamily);
    f.setPointSizeF(pt);
    f.setBold(bold);
    doc.setDefaultFont(f);
    doc.setDocumentMargin(0);
    doc.setTextWidth(width_);
    doc.setPlainText(QString::fromStdString(text));
    if (y_ + doc.size().height() > height_ && y_ > 0) new_page();
    draw(doc);
    y_ += after;
  }

  void draw(QTextDocument& doc) {
    painter_.save();
    painter_.translate(0, y_);
    doc.drawContents(&painter_);
    painter_.restore();
    y_ += doc.size().height();
  }

  void new_page() {
    writer_.newPage();
    y_ = 0;
  }

  QPdfWriter& writer_;
  QPainter& painter_;
  double width_ = 0, height_ = 0, y_ = 0;
};

}  // namespace

Result<std::string> render_pdf(const ReportModel& model) {
  OffscreenApp app;
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setResolution(kDpi);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(15, 15, 15, 15),
                                     QPageLayout::Millimeter));
    writer.setTitle("RaidScope report");
    writer.setCreator(QStringLiteral("raidscope " RAIDSCOPE_VERSION));
    QPainter painter;
    if (!painter.begin(&writer)) return make_error(Errc::io_error, "cannot start a PDF page (Qt's PDF writer)");
    PageFlow flow(writer, painter);
    for (const auto& b : report_outline(model)) {
      switch (b.kind) {
        case Block::Kind::title:
          flow.title(b.text);
          break;
        case Block::Kind::heading:
          flow.heading(b.text);
          break;
        case Block::Kind::paragraph:
          flow.paragraph(b.text);
          break;
        case Block::Kind::table:
          flow.table(b.text, b.rows);
          break;
        case Block::Kind::chart:
          flow.chart(b.chart);
          break;
      }
    }
    if (!painter.end()) return make_error(Errc::io_error, "finishing the PDF failed (Qt's PDF writer)");
  }
  if (!bytes.startsWith("%PDF")) return make_error(Errc::internal, "Qt's PDF writer produced no PDF");
  return bytes.toStdString();
}

}  // namespace rs::report
