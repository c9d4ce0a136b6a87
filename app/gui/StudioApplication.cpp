#include "StudioApplication.h"

#include <QEvent>
#include <QMetaEnum>
#include <QPointer>
#include <cstdio>
#include <exception>
#include <new>

namespace amp::gui {

StudioApplication::StudioApplication(int& argc, char** argv) : QApplication(argc, argv) {}

bool StudioApplication::notify(QObject* receiver, QEvent* event) {
  try {
    return QApplication::notify(receiver, event);
  } catch (const std::bad_alloc&) {
    report(tr("out of memory (std::bad_alloc): an input may declare far more data than it holds"),
           receiver, event);
  } catch (const std::exception& e) {
    report(QString::fromLocal8Bit(e.what()), receiver, event);
  } catch (...) {
    report(tr("an unknown exception"), receiver, event);
  }
  return false;
}

void StudioApplication::report(const QString& what, QObject* receiver, QEvent* event) {
  ++uncaught_;
  QString where =
      receiver ? QString::fromLatin1(receiver->metaObject()->className()) : QStringLiteral("?");
  if (receiver && !receiver->objectName().isEmpty()) where += " '" + receiver->objectName() + "'";
  if (event) {
    const char* type = QMetaEnum::fromType<QEvent::Type>().valueToKey(event->type());
    where += QStringLiteral(", %1 event")
                 .arg(type ? QString::fromLatin1(type) : QString::number(event->type()));
  }
  // stderr first: the message must survive even if what follows fails too.
  std::fprintf(stderr, "ampstudio: error: %s (in %s); the studio goes on\n",
               what.toLocal8Bit().constData(), where.toLocal8Bit().constData());
  std::fflush(stderr);
  // Queued: the slots that show it run after this event's handlers have unwound.
  QMetaObject::invokeMethod(
      this, [this, what, where] { emit uncaughtError(what, where); }, Qt::QueuedConnection);
}

}  // namespace amp::gui
