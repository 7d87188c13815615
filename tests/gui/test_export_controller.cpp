// The Arrays page's NBD control on a real array: refusals that serve
// nothing (no array, an exposed address, a bad name), then serving the
// open array on a unix socket: the URI, a client that writes and reads
// listed with its bytes and operations, the dashboard's telemetry moving
// with the client's writes, Stop ending the client's connection and
// removing the socket, and closing the array stopping the export.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cstring>
#include <thread>

#include "arrays_controller.hpp"
#include "create_plan.hpp"
#include "device_picker.hpp"
#include "export/nbd_proto.hpp"
#include "export/socket_io.hpp"
#include "export_controller.hpp"
#include "live_session.hpp"

using namespace rs::gui;
using namespace rs::nbd;

namespace {

// A bare NBD client (fixed newstyle, GO, simple replies): enough to be a
// connected client that writes and reads.
class Client {
 public:
  explicit Client(const QString& socket) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socket.toLocal8Bit().constData(), sizeof a.sun_path - 1);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
    uint8_t greeting[kGreetingBytes];
    if (!read_exact(fd_, greeting, sizeof greeting)) return;
    std::vector<uint8_t> out;
    put32(out, kClientFixedNewstyle | kClientNoZeroes);
    put64(out, kOptionMagic);
    put32(out, kOptGo);
    put32(out, 6);  // default name, no info requests
    put32(out, 0);
    put16(out, 0);
    if (!write_all(fd_, out.data(), out.size())) return;
    for (;;) {  // option replies until GO's ACK
      uint8_t h[20];
      if (!read_exact(fd_, h, 20)) return;
      std::vector<uint8_t> d(get32(h + 16));
      if (!d.empty() && !read_exact(fd_, d.data(), d.size())) return;
      if (get32(h + 12) & 0x80000000u) return;  // an error reply
      if (get32(h + 12) == kRepAck) break;
    }
    ok_ = true;
  }
  ~Client() { ::close(fd_); }
  bool ok() const { return ok_; }
  // One request; true when the reply carries no error.
  bool call(uint16_t type, uint64_t offset, uint32_t length, std::vector<uint8_t>* data) {
    std::vector<uint8_t> out;
    encode_request(out, Request{0, type, ++cookie_, offset, length});
    if (type == kCmdWrite) out.insert(out.end(), data->begin(), data->end());
    if (!write_all(fd_, out.data(), out.size())) return false;
    uint8_t reply[16];
    if (!read_exact(fd_, reply, sizeof reply) || get32(reply) != kSimpleReplyMagic) return false;
    if (get32(reply + 4) != 0) return false;
    if (type == kCmdRead) {
      data->resize(length);
      return read_exact(fd_, data->data(), length);
    }
    return true;
  }
  // The server hung up: a read gets end of file (or a reset).
  bool hungUp() {
    uint8_t b;
    return ::recv(fd_, &b, 1, 0) <= 0;
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
  uint64_t cookie_ = 0;
};

}  // namespace

class ExportControllerTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void refusalsServeNothing();
  void servesTheOpenArrayAndListsClients();
  void closingTheArrayStopsTheExport();

 private:
  QString path(const QString& name) const { return dir_.path() + "/" + name; }
  QTemporaryDir dir_;
  LiveSession* session_ = nullptr;
  ExportController* export_ = nullptr;
};

void ExportControllerTest::initTestCase() {
  QVERIFY(dir_.isValid());
  qputenv("RAIDSCOPE_RESULTS_DIR", (dir_.path() + "/results").toLocal8Bit());
  qputenv("RAIDSCOPE_DEMO_DIR", (dir_.path() + "/demo").toLocal8Bit());
  session_ = new LiveSession(this);
  export_ = new ExportController(this);
  export_->setSession(session_);
}

void ExportControllerTest::refusalsServeNothing() {
  QVERIFY(!export_->start("unix:" + path("s.sock"), "disk", false));
  QVERIFY2(export_->errorString().contains("No array is open"), qPrintable(export_->errorString()));
  QVERIFY(!export_->serving());

  ArraysController arrays;
  arrays.setSession(session_);
  QSignalSpy created(&arrays, &ArraysController::created);
  // Created as the wizard does: two new image files picked, the plan made.
  DevicePicker picker;
  picker.setNewFileSize("32M");
  picker.addImageFiles({path("m0.img"), path("m1.img")});
  QTRY_VERIFY_WITH_TIMEOUT(!picker.scanning(), 20000);
  CreatePlan plan;
  plan.setPicker(&picker);
  plan.setLevel(1);
  plan.setMembers({path("m0.img"), path("m1.img")});
  QVERIFY2(plan.problems().isEmpty(), qPrintable(plan.problems().join("; ")));
  QVERIFY(arrays.create(&plan, false));
  QTRY_VERIFY_WITH_TIMEOUT(created.count() == 1, 30000);
  QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Idle && session_->arraySession(), 30000);

  QVERIFY(!export_->start("tcp:0.0.0.0:0", "disk", false));
  QVERIFY2(export_->errorString().contains("reachable from other machines"),
           qPrintable(export_->errorString()));
  QVERIFY(!export_->start("unix:" + path("s.sock"), "a b", false));
  QVERIFY2(export_->errorString().contains("export name"), qPrintable(export_->errorString()));
  QVERIFY(!export_->start("ftp:x", "disk", false));
  QVERIFY2(export_->errorString().contains("unix:PATH or tcp:HOST:PORT"), qPrintable(export_->errorString()));
  QVERIFY(!export_->serving());
  QVERIFY(!QFile::exists(path("s.sock")));
}

void ExportControllerTest::servesTheOpenArrayAndListsClients() {
  QSignalSpy servingChanged(export_, &ExportController::servingChanged);
  QVERIFY2(export_->start("unix:" + path("s.sock"), "disk", false), qPrintable(export_->errorString()));
  QVERIFY(export_->serving());
  QCOMPARE(servingChanged.count(), 1);
  QVERIFY(export_->errorString().isEmpty());
  QCOMPARE(export_->uri(), "nbd+unix:///disk?socket=" + path("s.sock"));
  QCOMPARE(export_->address(), "unix:" + path("s.sock"));
  // RAID1 of 32 MiB files: 31 MiB of data (md's 1 MiB data offset), md's 512-byte sector.
  QVERIFY2(export_->summary().startsWith("31.0 MiB, blocks of 512 to 33554432 bytes"),
           qPrintable(export_->summary()));
  QVERIFY(export_->clients().isEmpty());
  QVERIFY(!export_->start("unix:" + path("t.sock"), "disk", false));  // once at a time

  auto client = std::make_unique<Client>(path("s.sock"));
  QVERIFY(client->ok());
  std::vector<uint8_t> block(1 << 20, 0x3c), back;
  QVERIFY(client->call(kCmdWrite, 0, uint32_t(block.size()), &block));
  QVERIFY(client->call(kCmdRead, 0, 65536, &back));
  QVERIFY(std::equal(back.begin(), back.end(), block.begin()));
  QTRY_COMPARE_WITH_TIMEOUT(export_->clients().size(), 1, 5000);
  QTRY_VERIFY_WITH_TIMEOUT(export_->clients()[0].toMap()["writeBytes"].toULongLong() == (1u << 20), 5000);
  const QVariantMap row = export_->clients()[0].toMap();
  QVERIFY2(row["name"].toString().startsWith("nbd "), qPrintable(row["name"].toString()));
  QCOMPARE(row["readBytes"].toULongLong(), 65536ull);
  QVERIFY(row["writes"].toULongLong() >= 1 && row["reads"].toULongLong() >= 1);
  QVERIFY2(row["text"].toString().startsWith("read 64.0 KiB in "), qPrintable(row["text"].toString()));
  QVERIFY2(row["text"].toString().contains("wrote 1.0 MiB in "), qPrintable(row["text"].toString()));

  // The dashboard's telemetry is the session's: it shows the client's writes.
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    Client w(path("s.sock"));
    std::vector<uint8_t> b(256 << 10, 0x11);
    for (uint64_t at = 0; writing.load() && w.ok(); at = (at + b.size()) % (16 << 20))
      if (!w.call(kCmdWrite, at, uint32_t(b.size()), &b)) break;
  });
  QTRY_VERIFY_WITH_TIMEOUT(session_->telemetry()->writeBandwidth() > 0, 10000);
  QTRY_COMPARE_WITH_TIMEOUT(export_->clients().size(), 2, 5000);
  writing = false;
  writer.join();
  QTRY_COMPARE_WITH_TIMEOUT(export_->clients().size(), 1, 5000);

  export_->stop();
  QVERIFY(!export_->serving());
  QVERIFY(export_->uri().isEmpty());
  QVERIFY(export_->clients().isEmpty());
  QVERIFY(client->hungUp());
  QVERIFY(!QFile::exists(path("s.sock")));
  export_->stop();  // idempotent
  QCOMPARE(servingChanged.count(), 2);
}

void ExportControllerTest::closingTheArrayStopsTheExport() {
  QVERIFY2(export_->start("tcp:127.0.0.1:0", "disk", true), qPrintable(export_->errorString()));
  QVERIFY2(export_->uri().startsWith("nbd://127.0.0.1:"), qPrintable(export_->uri()));
  QVERIFY2(export_->summary().endsWith(", read-only"), qPrintable(export_->summary()));
  session_->openArray({});
  QTRY_VERIFY_WITH_TIMEOUT(!export_->serving(), 10000);
  QVERIFY2(export_->errorString().contains("closed"), qPrintable(export_->errorString()));
}

QTEST_GUILESS_MAIN(ExportControllerTest)
#include "test_export_controller.moc"
