#pragma once
// The studio's QApplication: the last line against an exception that a slot, a timer or an event
// handler did not catch. Qt's event loop does not catch exceptions, so one leaving a handler
// (std::bad_alloc from a hostile file, a parser's error) would reach std::terminate and take every
// open run's view and every unsaved edit with it. Here it is reported instead and the event is
// dropped; the panels catch what they can name themselves, this catches the rest.
//
//   amp::gui::StudioApplication app(argc, argv);
//   QObject::connect(&app, &StudioApplication::uncaughtError, &window, &MainWindow::reportError);
#include <QApplication>
#include <QString>

namespace amp::gui {

class StudioApplication : public QApplication {
  Q_OBJECT
 public:
  StudioApplication(int& argc, char** argv);

  bool notify(QObject* receiver, QEvent* event) override;

  /// How many exceptions notify() has stopped so far.
  int uncaughtCount() const { return uncaught_; }

 signals:
  /// An exception left an event handler: what it said, and which object and event it reached.
  /// Emitted from the event loop after the failed event, never from inside it.
  void uncaughtError(const QString& what, const QString& where);

 private:
  void report(const QString& what, QObject* receiver, QEvent* event);
  int uncaught_ = 0;
};

}  // namespace amp::gui
