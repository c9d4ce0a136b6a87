#include "RecentConfigs.h"

#include <QFileInfo>
#include <QSettings>

namespace amp::gui {
namespace {
// Keys of earlier versions: renaming them would forget every user's list.
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kLastKey = QStringLiteral("session/config");
}  // namespace

RecentConfigs::RecentConfigs(QObject* parent) : QObject(parent) {}

QStringList RecentConfigs::paths() const {
  return QSettings().value(kRecentKey).toStringList();
}

void RecentConfigs::remember(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(kRecentKey).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(kRecentKey, recent);
  settings.setValue(kLastKey, path);
  emit changed();
}

QString RecentConfigs::lastConfig() const {
  const QString path = QSettings().value(kLastKey).toString();
  return !path.isEmpty() && QFileInfo(path).isFile() ? path : QString();
}

}  // namespace amp::gui
