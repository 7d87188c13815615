#include "device_picker.hpp"

#include <sys/stat.h>

#include <QObject>
#include <QVariantMap>

#include "discovery/block_devices.hpp"
#include "discovery/in_use.hpp"
#include "discovery/open_by.hpp"
#include "discovery/safety.hpp"
#include "discovery/signature.hpp"
#include "io/member_device.hpp"
#include "fio/size_parse.hpp"

namespace rs::gui {

namespace {

QString sizeText(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  return QString::number(bytes, 'f', u == 0 || bytes >= 100 ? 0 : 1) + " " + units[u];
}

QVariantMap describeDevice(const discovery::BlockDevice& d) {
  discovery::Identity id;
  id.kind = discovery::Identity::Kind::block_device;
  id.path = d.node;
  id.rdev = d.rdev;
  id.loop = d.loop;
  const discovery::Assessment a = discovery::assess(d, discovery::processes_with_open(id));
  QVariantMap row;
  row["path"] = QString::fromStdString(d.node);
  row["name"] = QString::fromStdString(d.name);
  row["kind"] = QString::fromLatin1(discovery::device_kind_name(d.kind));
  row["size"] = double(d.size_bytes);
  row["sizeText"] = sizeText(double(d.size_bytes));
  row["model"] = QString::fromStdString(d.model);
  // What the read policies see: for a loop device, its backing storage's.
  row["rotational"] = d.effective.rotational ? QObject::tr("yes") : QObject::tr("no");
  row["backing"] = d.loop ? QString::fromStdString(d.loop->path) : QString();
  row["usable"] = a.safe();
  row["reason"] = QString::fromStdString(a.summary());
  row["blockDevice"] = true;
  return row;
}

QVariantMap describeImage(const std::string& p, const QString& newSize) {
  QVariantMap row;
  row["path"] = QString::fromStdString(p);
  row["name"] = QString::fromStdString(p.substr(p.find_last_of('/') + 1));
  row["blockDevice"] = false;
  row["model"] = QString();
  row["backing"] = QString();
  // An image file's bytes are on the host's disk: the file itself has no
  // rotational flag of its own.
  row["rotational"] = QObject::tr("file");
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    const auto size = fio::parse_size(newSize.toStdString());
    row["kind"] = QObject::tr("new image file");
    row["size"] = size.ok() ? double(size->value) : 0.0;
    row["sizeText"] = size.ok() ? sizeText(double(size->value)) : newSize;
    row["usable"] = size.ok() && size->value >= (4u << 20);
    row["reason"] = size.ok() && size->value >= (4u << 20)
                        ? QString()
                        : QObject::tr("give new files a size of at least 4M");
    return row;
  }
  row["kind"] = S_ISBLK(st.st_mode) ? QObject::tr("block device") : QObject::tr("image file");
  QString reason;
  if (auto dev = io::MemberDevice::open(p, io::OpenMode::ReadOnly)) {
    row["size"] = double((*dev)->size_bytes());
    row["sizeText"] = sizeText(double((*dev)->size_bytes()));
  } else {
    reason = QString::fromStdString(dev.error().message);
  }
  if (reason.isEmpty()) reason = QString::fromStdString(discovery::member_in_use(p));
  if (reason.isEmpty()) {
    const std::string sig = discovery::existing_signature(p);
    // How to free it, as the engine's refusal says it (the window has no --force).
    if (!sig.empty())
      reason = QObject::tr("holds %1 (if it is no longer needed, clear it first: %2, or delete the file)")
                   .arg(QString::fromStdString(sig),
                        QString::fromStdString(sig).contains("raid", Qt::CaseInsensitive) ||
                                QString::fromStdString(sig).contains("md superblock", Qt::CaseInsensitive)
                            ? QStringLiteral("mdadm --zero-superblock")
                            : QStringLiteral("wipefs -a"));
  }
  row["usable"] = reason.isEmpty();
  row["reason"] = reason;
  return row;
}

}  // namespace

DevicePicker::DevicePicker(QObject* parent) : QObject(parent) {}

DevicePicker::~DevicePicker() {
  joinWorker();
}

void DevicePicker::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

void DevicePicker::setNewFileSize(const QString& s) {
  if (s == new_file_size_) return;
  new_file_size_ = s.trimmed();
  scan();
}

void DevicePicker::addImageFiles(const QStringList& paths) {
  for (QString p : paths) {
    p = p.trimmed();
    if (p.startsWith("file://")) p = p.mid(7);
    if (!p.isEmpty() && !images_.contains(p)) images_ << p;
  }
  scan();
}

void DevicePicker::removeImageFile(const QString& path) {
  images_.removeAll(path);
  scan();
}

QVariantMap DevicePicker::candidate(const QString& path) const {
  for (const auto& c : candidates_)
    if (c.toMap()["path"].toString() == path) return c.toMap();
  return {};
}

void DevicePicker::scan() {
  if (scanning_) {
    again_ = true;
    return;
  }
  joinWorker();
  scanning_ = true;
  emit candidatesChanged();
  std::vector<std::string> images;
  for (const auto& p : images_) images.push_back(p.toStdString());
  worker_ = std::thread([this, images, size = new_file_size_] {
    QVariantList rows;
    for (const auto& p : images) rows.push_back(describeImage(p, size));
    for (const auto& d : discovery::scan_block_devices())
      if (d.kind == discovery::DeviceKind::disk || d.kind == discovery::DeviceKind::partition ||
          d.kind == discovery::DeviceKind::loop)
        rows.push_back(describeDevice(d));
    QMetaObject::invokeMethod(
        this,
        [this, rows] {
          candidates_ = rows;
          scanning_ = false;
          emit candidatesChanged();
          if (again_) again_ = false, scan();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace rs::gui
