// The History page: every run kept in the results folder (result
// documents, listed when the app starts and as runs are saved), newest
// first; any two picked are compared (comparison.hpp) and exported as one
// report. Files are read on a worker thread; one that is not a result
// document is left out.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QStringList>
#include <QVariantList>
#include <QVariantMap>
#include <map>
#include <thread>

#include "report/result_doc.hpp"

namespace rs::gui {

class HistoryModel : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString resultsDir READ resultsDir WRITE setResultsDir NOTIFY runsChanged)
  // [{file, name, when, title, bandwidth, iops, p99Ms, array, selected}]
  Q_PROPERTY(QVariantList runs READ runs NOTIFY runsChanged)
  Q_PROPERTY(bool loading READ loading NOTIFY runsChanged)
  Q_PROPERTY(QStringList selected READ selected NOTIFY selectionChanged)  // files, oldest pick first
  // compareRuns() of the two picked (older first), {} until two are.
  Q_PROPERTY(QVariantMap comparison READ comparison NOTIFY selectionChanged)
  Q_PROPERTY(QString exportMessage READ exportMessage NOTIFY exportedChanged)
  Q_PROPERTY(bool exportOk READ exportOk NOTIFY exportedChanged)
  // The file the last export wrote ("" before one, or after the picks
  // changed): the page's Report field shows it, as the message names it.
  Q_PROPERTY(QString lastReport READ lastReport NOTIFY exportedChanged)

 public:
  explicit HistoryModel(QObject* parent = nullptr);
  ~HistoryModel() override;

  QString resultsDir() const { return dir_; }
  void setResultsDir(const QString& dir);
  QVariantList runs() const;
  bool loading() const { return loading_; }
  QStringList selected() const { return selected_; }
  QVariantMap comparison() const;
  QString exportMessage() const { return export_message_; }
  bool exportOk() const { return export_ok_; }
  QString lastReport() const { return last_report_; }

  Q_INVOKABLE void refresh();
  // Picks a run, or drops it when picked; a third pick drops the first.
  Q_INVOKABLE void toggle(const QString& file);
  // The picked runs as one report (the format from the suffix); never over
  // a file that is there (the next free name). Returns false, with
  // exportMessage saying why, when refused.
  Q_INVOKABLE bool exportReport(const QString& path);
  Q_INVOKABLE QString suggestedReport() const;

 signals:
  void runsChanged();
  void selectionChanged();
  void exportedChanged();

 private:
  struct Run {
    QVariantMap row;
    report::Json doc;
  };
  void joinWorker();
  QString dir_;
  std::map<QString, Run> runs_;  // by file
  QStringList selected_;
  bool loading_ = false, again_ = false;
  QString export_message_, last_report_;
  bool export_ok_ = false;
  std::thread worker_;
};

}  // namespace rs::gui
