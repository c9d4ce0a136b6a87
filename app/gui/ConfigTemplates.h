#pragma once
// The configs the studio offers to start from (File > New, the start page, the demo button):
// the demo first, then every YAML under configs/ except the base/ fragments other configs pull in
// through _BASE_. Found once from where the studio runs, so a build folder inside the source tree
// and scripts/run.sh's working folder both see the shipped configs.
//
//   ConfigTemplates templates(ConfigTemplates::locateConfigsFolder());
//   for (const QString& path : templates.templates()) menu->addAction(templates.menuText(path));
//   startDemo(templates.demoConfig());  // empty where no configs/demo was found
#include <QObject>
#include <QStringList>

namespace amp::gui {

class ConfigTemplates : public QObject {
  Q_OBJECT
 public:
  /// `configsFolder`: the folder holding demo/ and the model families; empty offers nothing.
  explicit ConfigTemplates(QString configsFolder, QObject* parent = nullptr);

  /// configs/ beside the working folder (scripts/run.sh), else up to four folders above the
  /// executable (a build folder inside the source tree); empty when neither has configs/demo.
  static QString locateConfigsFolder();

  QString folder() const { return folder_; }
  /// The demo's config, or empty where the folder has none.
  QString demoConfig() const;
  /// The demo first, then the others sorted case-insensitively (demo/ before Kinetics/).
  QStringList templates() const;
  /// Whether `path` is one of the demo templates (configs/demo/): they train on generated data.
  bool isDemo(const QString& path) const;
  /// What File > New shows for `path`: its path under the folder; the demo says what it is.
  QString menuText(const QString& path) const;

 private:
  QString folder_;
};

}  // namespace amp::gui
