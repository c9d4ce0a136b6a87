#pragma once
// The list of a config's problems; activating one asks to show it in the text.
#include <QTreeWidget>

#include "config/Diagnostic.h"

namespace amp::widgets {

class DiagnosticsView : public QTreeWidget {
  Q_OBJECT
 public:
  explicit DiagnosticsView(QWidget* parent = nullptr);
  /// Shows the diagnostics; those located in `localFile` can be jumped to. The pre-flight
  /// problems (of this machine, the data and the files) follow the config's, marked as such.
  void setDiagnostics(const config::Diagnostics& diagnostics, const std::string& localFile,
                      const config::Diagnostics& preflight = {});

 signals:
  void locationActivated(int line, int column);
};

}  // namespace amp::widgets
