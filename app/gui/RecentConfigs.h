#pragma once
// The configs the user opened or saved, newest first, kept across sessions in QSettings: File >
// Open Recent and the start page list them, and the newest is the config the next launch reopens.
// The window only shows the list and asks for it again on `changed`.
//
//   RecentConfigs recent;
//   connect(&recent, &RecentConfigs::changed, this, [&] { startPage->setRecent(recent.paths()); });
//   recent.remember(editor->filePath());    // after an open or a save as
//   const QString last = recent.lastConfig();  // empty when the file is gone
#include <QObject>
#include <QStringList>

namespace amp::gui {

class RecentConfigs : public QObject {
  Q_OBJECT
 public:
  /// Eight fill File > Open Recent without scrolling and cover a week's usual configs.
  static constexpr int kMaxRecent = 8;

  explicit RecentConfigs(QObject* parent = nullptr);

  /// Newest first, at most kMaxRecent, each once; files since deleted are still listed (the start
  /// page greys them out) so a config on an unmounted disk is not forgotten.
  QStringList paths() const;
  /// Moves `path` to the front (adding it if new, dropping the oldest beyond kMaxRecent) and
  /// makes it the config the next session reopens. Emits `changed`.
  void remember(const QString& path);
  /// The config the last session had open, where it still exists; else empty.
  QString lastConfig() const;

 signals:
  void changed();
};

}  // namespace amp::gui
