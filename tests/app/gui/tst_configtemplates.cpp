// Which configs File > New and the start page offer: the demo first, the rest sorted, no base/
// fragments, from configs/ beside the working folder or above the program.
#include <QtTest>

#include <QDir>
#include <QTemporaryDir>

#include "ConfigTemplates.h"

using amp::gui::ConfigTemplates;

class TestConfigTemplates : public QObject {
  Q_OBJECT
 private:
  static void touch(const QString& path) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write("# a config\n");
  }

 private slots:
  void theDemoComesFirstThenTheOthersSortedWithoutBase() {
    QTemporaryDir dir;
    const QDir root(dir.path());
    for (const char* rel : {"Kinetics/X3D_M.yaml", "demo/DEMO_X3D_TINY_FP32.yaml",
                            "demo/DEMO_X3D_TINY.yaml", "AVA/SLOWFAST.yaml", "base/common.yaml",
                            "Kinetics/base/resnet.yaml", "charades/slow.yaml", "README.md"})
      touch(root.filePath(rel));
    ConfigTemplates templates(dir.path());
    QCOMPARE(templates.demoConfig(), root.filePath("demo/DEMO_X3D_TINY.yaml"));
    QStringList relative;
    for (const QString& path : templates.templates()) relative << root.relativeFilePath(path);
    // Case-insensitive: "charades" between "AVA" and "demo", not after "Kinetics".
    QCOMPARE(relative,
             QStringList({"demo/DEMO_X3D_TINY.yaml", "AVA/SLOWFAST.yaml", "charades/slow.yaml",
                          "demo/DEMO_X3D_TINY_FP32.yaml", "Kinetics/X3D_M.yaml"}));
  }

  void theMenuNamesTheDemoAndShowsTheOthersRelative() {
    QTemporaryDir dir;
    touch(QDir(dir.path()).filePath("demo/DEMO_X3D_TINY.yaml"));
    touch(QDir(dir.path()).filePath("Kinetics/X3D_M.yaml"));
    ConfigTemplates templates(dir.path());
    QCOMPARE(templates.menuText(templates.demoConfig()),
             QString("Demo: tiny X3D on generated clips (demo/DEMO_X3D_TINY.yaml)"));
    QCOMPARE(templates.menuText(QDir(dir.path()).filePath("Kinetics/X3D_M.yaml")),
             QString("Kinetics/X3D_M.yaml"));
  }

  // The start page trains demo/ templates at once (their data is generated); others open.
  void demoTemplatesAreTheOnesUnderDemo() {
    QTemporaryDir dir;
    const QDir root(dir.path());
    ConfigTemplates templates(dir.path());
    QVERIFY(templates.isDemo(root.filePath("demo/DEMO_X3D_TINY_CHARADES.yaml")));
    QVERIFY(templates.isDemo(root.filePath("demo/DEMO_X3D_TINY.yaml")));
    QVERIFY(!templates.isDemo(root.filePath("Charades/SLOWFAST_16x8_R50.yaml")));
    QVERIFY(!templates.isDemo("/elsewhere/demo.yaml"));
    QVERIFY(!ConfigTemplates(QString()).isDemo(root.filePath("demo/DEMO_X3D_TINY.yaml")));
  }

  // Without the demo the others are still offered; without a folder nothing is.
  void aFolderWithoutTheDemoOrNoFolder() {
    QTemporaryDir dir;
    touch(QDir(dir.path()).filePath("Kinetics/X3D_M.yaml"));
    ConfigTemplates noDemo(dir.path());
    QVERIFY(noDemo.demoConfig().isEmpty());
    QCOMPARE(noDemo.templates(), QStringList{QDir(dir.path()).filePath("Kinetics/X3D_M.yaml")});
    QCOMPARE(noDemo.menuText(noDemo.templates().front()), QString("Kinetics/X3D_M.yaml"));
    ConfigTemplates none{QString()};
    QVERIFY(none.demoConfig().isEmpty());
    QVERIFY(none.templates().isEmpty());
  }

  // configs/ beside the working folder wins over the one above the program.
  void theWorkingFolderIsSearchedFirst() {
    QTemporaryDir cwd;
    QDir().mkpath(QDir(cwd.path()).filePath("configs/demo"));
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(cwd.path()));
    const QString found = ConfigTemplates::locateConfigsFolder();
    QVERIFY(QDir::setCurrent(previous));
    QCOMPARE(QFileInfo(found).canonicalFilePath(),
             QFileInfo(QDir(cwd.path()).filePath("configs")).canonicalFilePath());
  }

  // A build folder inside the source tree (this test's own): the shipped configs above it.
  void theProgramsFolderIsSearchedUpwards() {
    const QString source = QFileInfo(AMPSTUDIO_SOURCE_DIR).canonicalFilePath();
    if (!QFileInfo(QCoreApplication::applicationDirPath())
             .canonicalFilePath()
             .startsWith(source + "/"))
      QSKIP("this build folder is outside the source tree");
    QTemporaryDir cwd;  // no configs/ here
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(cwd.path()));
    const QString found = ConfigTemplates::locateConfigsFolder();
    QVERIFY(QDir::setCurrent(previous));
    QCOMPARE(QFileInfo(found).canonicalFilePath(), source + "/configs");
    QVERIFY(!ConfigTemplates(found).demoConfig().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestConfigTemplates)
#include "tst_configtemplates.moc"
