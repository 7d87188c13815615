// The Arrays page's "Serve over NBD" control: serves the array the live
// session holds as an NBD export (engine/export) on a unix socket or a
// loopback TCP port, shows the URI NBD clients take (copyable), and lists
// the connected clients with their bytes and operations. The export is a
// set of clients of the same ArraySession the GUI shows, so the dashboard's
// charts move with whatever the NBD clients do.
//
// Only unix sockets and loopback addresses: the GUI has no way to serve to
// other machines (NBD has no authentication; `raidscope-cli serve
// --listen-any` is the deliberate way). Opening another array, or closing
// this one, stops the export first.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QVariantList>
#include <memory>

#include "live_session.hpp"

namespace rs::nbd {
class Server;
}

namespace rs::gui {

class ExportController : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::LiveSession* session READ session WRITE setSession NOTIFY sessionChanged)
  Q_PROPERTY(bool serving READ serving NOTIFY servingChanged)
  Q_PROPERTY(QString uri READ uri NOTIFY servingChanged)  // nbd+unix:///NAME?socket=PATH
  Q_PROPERTY(
      QString address READ address NOTIFY servingChanged)  // as bound: "unix:PATH", "tcp:127.0.0.1:PORT"
  Q_PROPERTY(QString summary READ summary NOTIFY servingChanged)  // size, block sizes, read-only
  Q_PROPERTY(QString errorString READ errorString NOTIFY errorChanged)
  Q_PROPERTY(QString defaultAddress READ defaultAddress CONSTANT)
  // [{name, reads, writes, readBytes, writeBytes, text}], refreshed twice a second.
  Q_PROPERTY(QVariantList clients READ clients NOTIFY clientsChanged)

 public:
  explicit ExportController(QObject* parent = nullptr);
  ~ExportController() override;

  LiveSession* session() const { return session_; }
  void setSession(LiveSession* s);
  bool serving() const { return server_ != nullptr; }
  QString uri() const;
  QString address() const;
  QString summary() const;
  QString errorString() const { return error_; }
  QString defaultAddress() const;  // unix:$XDG_RUNTIME_DIR/raidscope-gui.sock
  QVariantList clients() const { return clients_; }

  // Serves the open array at `address` ("unix:PATH" or "tcp:127.0.0.1:PORT";
  // port 0 picks a free one) under the export name `name`. False, with
  // errorString saying why, when no array is open, the address is not
  // local, the name is not valid or the socket is taken.
  Q_INVOKABLE bool start(const QString& address, const QString& name, bool readOnly);
  // Ends every connection and removes the socket (idempotent).
  Q_INVOKABLE void stop();
  // Puts the URI on the clipboard.
  Q_INVOKABLE void copyUri() const;
  // "12.0 MiB": the figure the client list shows.
  static QString formatBytes(uint64_t bytes);

 signals:
  void sessionChanged();
  void servingChanged();
  void errorChanged();
  void clientsChanged();

 private:
  void setError(const QString& e);
  void refreshClients();
  void arrayMayHaveChanged();

  QPointer<LiveSession> session_;
  std::unique_ptr<nbd::Server> server_;
  std::shared_ptr<session::ArraySession> served_;  // the session the server serves
  QString error_;
  QVariantList clients_;
  QTimer refresh_;
};

}  // namespace rs::gui
