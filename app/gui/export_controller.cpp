#include "export_controller.hpp"

#include <QClipboard>
#include <QGuiApplication>
#include <cstdlib>

#include "export/server.hpp"

namespace rs::gui {

ExportController::ExportController(QObject* parent) : QObject(parent) {
  refresh_.setInterval(500);
  connect(&refresh_, &QTimer::timeout, this, &ExportController::refreshClients);
}

ExportController::~ExportController() {
  stop();
}

void ExportController::setSession(LiveSession* s) {
  if (session_ == s) return;
  if (session_) disconnect(session_, nullptr, this, nullptr);
  stop();
  session_ = s;
  if (session_) connect(session_, &LiveSession::membersChanged, this, &ExportController::arrayMayHaveChanged);
  emit sessionChanged();
}

QString ExportController::uri() const {
  return server_ ? QString::fromStdString(server_->uri()) : QString();
}

QString ExportController::address() const {
  return server_ ? QString::fromStdString(server_->address().text()) : QString();
}

QString ExportController::summary() const {
  if (!server_) return {};
  const nbd::ExportInfo& e = server_->info();
  QString s = tr("%1, blocks of %2 to %3 bytes (preferred %4)")
                  .arg(formatBytes(e.size))
                  .arg(e.minimum)
                  .arg(e.maximum)
                  .arg(e.preferred);
  if (e.flags & nbd::kReadOnly) s += tr(", read-only");
  return s;
}

QString ExportController::defaultAddress() const {
  const char* run = std::getenv("XDG_RUNTIME_DIR");
  return QStringLiteral("unix:%1/raidscope-gui.sock").arg(run && *run ? run : "/tmp");
}

bool ExportController::start(const QString& address, const QString& name, bool readOnly) {
  if (server_) {
    setError(tr("The array is served already: stop it first."));
    return false;
  }
  auto array = session_ ? session_->arraySession() : nullptr;
  if (!array || !array->is_open()) {
    setError(tr("No array is open: open or create one first."));
    return false;
  }
  auto parsed = nbd::parse_listen_address(address.trimmed().toStdString());
  if (!parsed) {
    setError(QString::fromStdString(parsed.error().message));
    return false;
  }
  nbd::ServerOptions o;
  o.address = *parsed;
  o.name = name.trimmed().toStdString();
  o.read_only = readOnly;
  o.listen_any = false;  // the GUI serves this machine only
  auto server = nbd::Server::start(array, std::move(o));
  if (!server) {
    setError(QString::fromStdString(server.error().message));
    return false;
  }
  server_ = std::move(*server);
  served_ = std::move(array);
  setError({});
  refresh_.start();
  emit servingChanged();
  refreshClients();
  return true;
}

void ExportController::stop() {
  if (!server_) return;
  refresh_.stop();
  server_->stop();
  server_.reset();
  served_.reset();
  clients_.clear();
  emit servingChanged();
  emit clientsChanged();
}

void ExportController::copyUri() const {
  // Only a GUI application has a clipboard (the controller tests run without one).
  if (!server_ || !qobject_cast<QGuiApplication*>(QCoreApplication::instance())) return;
  QGuiApplication::clipboard()->setText(uri());
}

QString ExportController::formatBytes(uint64_t bytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? QStringLiteral("%1 bytes").arg(bytes)
                : QStringLiteral("%1 %2").arg(v, 0, 'f', 1).arg(units[u]);
}

void ExportController::setError(const QString& e) {
  if (error_ == e) return;
  error_ = e;
  emit errorChanged();
}

void ExportController::refreshClients() {
  if (!served_) return;
  arrayMayHaveChanged();
  if (!served_) return;
  QVariantList rows;
  for (const auto& c : served_->clients()) {
    if (c.kind != session::ClientKind::export_) continue;
    QVariantMap row;
    row["name"] = QString::fromStdString(c.name);
    row["reads"] = qulonglong(c.io.reads);
    row["writes"] = qulonglong(c.io.writes);
    row["readBytes"] = qulonglong(c.io.read_bytes);
    row["writeBytes"] = qulonglong(c.io.write_bytes);
    row["text"] = tr("read %1 in %2 ops, wrote %3 in %4 ops")
                      .arg(formatBytes(c.io.read_bytes))
                      .arg(c.io.reads)
                      .arg(formatBytes(c.io.write_bytes))
                      .arg(c.io.writes);
    rows.push_back(row);
  }
  if (rows == clients_) return;
  clients_ = std::move(rows);
  emit clientsChanged();
}

void ExportController::arrayMayHaveChanged() {
  // Another array (or none) is open now: this export served the old one.
  // The live session announces the change before it closes the old array
  // on its thread, so the refresh timer looks again until it has.
  if (server_ && (!session_ || session_->members().isEmpty() || session_->arraySession() != served_ ||
                  !served_->is_open())) {
    stop();
    setError(tr("The export stopped: the array it served was closed."));
  }
}

}  // namespace rs::gui
