// The files a run leaves: its result document in the results folder and
// the reports exported from it. Names say when and what ran and never
// overwrite a file that is there; members are named in the documents by
// their short distinct names, as the window names them (a report's legend
// read the same truncated temporary path for every member).
#pragma once
#include <QString>

#include "report/result_doc.hpp"

namespace rs::gui {

// `path` if no file is there, else the same name with -2, -3 ... before
// the suffix ("a.html" -> "a-2.html"), the first that is free.
QString uniquePath(const QString& path);
// A file name part from free text: "SEQ1M Q8T1 read · read_policy=md-rr"
// -> "SEQ1M_Q8T1_read_read_policy_md-rr" (at most 80 characters).
QString safeName(QString text);
// dir/<yyyyMMdd-hhmmss>-<safeName(what)>.<suffix>, unique.
QString stampedPath(const QString& dir, const QString& what, const QString& suffix);
// The members in a document's legends (fio's read shares, the telemetry,
// the events) by their short distinct names; the array's member table
// keeps the full paths.
void nameMembersShort(report::Json& doc);

}  // namespace rs::gui
