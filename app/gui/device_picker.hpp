// The create wizard's device picker: every block device, loop device and
// image file that could be a member, with its size, model, rotational and,
// for one that cannot be used, why (mounted, held, partitioned, holds a
// filesystem or another array's superblock...; shown greyed out). Block
// devices come from discovery (sysfs, their contents probed read-only);
// image files are the ones the user adds (existing, or new of a size). The
// scan runs on a worker thread; `candidates` is replaced when it is done.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QStringList>
#include <QVariantList>
#include <thread>

namespace rs::gui {

class DevicePicker : public QObject {
  Q_OBJECT
  QML_ELEMENT
  // [{path, name, kind ("disk", "partition", "loop", "image file", "new
  // image file"), size (bytes), sizeText ("256 MiB"), model, rotational
  // ("yes", "no", "file"), backing (a loop device's file), usable, reason,
  // blockDevice}]
  Q_PROPERTY(QVariantList candidates READ candidates NOTIFY candidatesChanged)
  Q_PROPERTY(bool scanning READ scanning NOTIFY candidatesChanged)
  // The size new image files get ("256M").
  Q_PROPERTY(QString newFileSize READ newFileSize WRITE setNewFileSize NOTIFY candidatesChanged)

 public:
  explicit DevicePicker(QObject* parent = nullptr);
  ~DevicePicker() override;

  QVariantList candidates() const { return candidates_; }
  bool scanning() const { return scanning_; }
  QString newFileSize() const { return new_file_size_; }
  void setNewFileSize(const QString& s);

  // Scans the block devices again (and describes the image files added).
  Q_INVOKABLE void scan();
  // Adds image files (existing ones or new ones to be made at newFileSize);
  // they are described by the scan this starts.
  Q_INVOKABLE void addImageFiles(const QStringList& paths);
  Q_INVOKABLE void removeImageFile(const QString& path);
  Q_INVOKABLE QVariantMap candidate(const QString& path) const;

 signals:
  void candidatesChanged();

 private:
  void joinWorker();
  QVariantList candidates_;
  QStringList images_;
  QString new_file_size_ = QStringLiteral("256M");
  bool scanning_ = false;
  bool again_ = false;  // a scan was asked for while one ran
  std::thread worker_;
};

}  // namespace rs::gui
