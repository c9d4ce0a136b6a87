#include "ConfigTemplates.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <utility>

namespace amp::gui {
namespace {
const QString kDemoConfig = QStringLiteral("demo/DEMO_X3D_TINY.yaml");
}  // namespace

ConfigTemplates::ConfigTemplates(QString configsFolder, QObject* parent)
    : QObject(parent), folder_(std::move(configsFolder)) {}

QString ConfigTemplates::locateConfigsFolder() {
  if (QFileInfo(QStringLiteral("configs/demo")).isDir())
    return QDir(QStringLiteral("configs")).absolutePath();
  QDir dir(QCoreApplication::applicationDirPath());
  for (int up = 0; up < 4 && dir.cdUp(); ++up)
    if (QFileInfo(dir.filePath(QStringLiteral("configs/demo"))).isDir())
      return dir.filePath(QStringLiteral("configs"));
  return {};
}

QString ConfigTemplates::demoConfig() const {
  if (folder_.isEmpty()) return {};
  const QString demo = QDir(folder_).filePath(kDemoConfig);
  return QFileInfo(demo).isFile() ? demo : QString();
}

QStringList ConfigTemplates::templates() const {
  if (folder_.isEmpty()) return {};
  QStringList out;
  const QString demo = demoConfig();
  if (!demo.isEmpty()) out << demo;
  QDirIterator it(folder_, {QStringLiteral("*.yaml")}, QDir::Files, QDirIterator::Subdirectories);
  QStringList rest;
  while (it.hasNext()) {
    const QString path = it.next();
    // base/ holds fragments that only make sense under another config's _BASE_.
    if (path != demo && !QDir(folder_).relativeFilePath(path).contains(QStringLiteral("base/")))
      rest << path;
  }
  rest.sort(Qt::CaseInsensitive);  // demo/ before Kinetics/
  return out + rest;
}

bool ConfigTemplates::isDemo(const QString& path) const {
  return !folder_.isEmpty() &&
         QDir(folder_).relativeFilePath(path).startsWith(QStringLiteral("demo/"));
}

QString ConfigTemplates::menuText(const QString& path) const {
  const QString rel = QDir(folder_).relativeFilePath(path);
  return path == demoConfig() ? tr("Demo: tiny X3D on generated clips (%1)").arg(rel) : rel;
}

}  // namespace amp::gui
