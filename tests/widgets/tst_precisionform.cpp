// The config form and the YAML text stay in sync both ways; invalid input is refused with the
// engine's message.
#include <QtTest>

#include <QLabel>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSpinBox>

#include "ConfigEditorPanel.h"
#include "ConfigTextEdit.h"
#include "DiagnosticsView.h"
#include "PrecisionForm.h"

using namespace amp;

namespace {
const char* kYaml =
    "# my experiment\n"
    "TRAIN:\n"
    "  BATCH_SIZE: 8  # per step\n"
    "  MIXED_PRECISION: True\n"
    "SOLVER:\n"
    "  BASE_LR: 0.004\n"
    "  MAX_EPOCH: 10\n"
    "NUM_GPUS: 0\n";
}

class TestPrecisionForm : public QObject {
  Q_OBJECT
 private slots:
  void formShowsTheYamlValues() {
    widgets::ConfigEditorPanel panel;
    panel.setText(kYaml);
    auto* form = panel.form();
    QVERIFY(form->isEnabled());
    QCOMPARE(form->precisionBox()->currentIndex(), 0);  // mixed + AMP.DTYPE auto
    QCOMPARE(qobject_cast<QSpinBox*>(form->field("TRAIN.BATCH_SIZE"))->value(), 8);
    QCOMPARE(qobject_cast<QDoubleSpinBox*>(form->field("SOLVER.BASE_LR"))->value(), 0.004);
    QCOMPARE(qobject_cast<QDoubleSpinBox*>(form->field("SOLVER.BASE_LR"))->text(),
             QString("0.004"));
    QCOMPARE(qobject_cast<QComboBox*>(form->field("AMP.SCALER"))->currentText(), QString("auto"));
    // bf16 on the CPU: no loss scaling, so the scaler's numbers are greyed out.
    QVERIFY(!form->field("AMP.INIT_SCALE")->isEnabled());
  }

  void formEditsGoIntoTheText() {
    widgets::ConfigEditorPanel panel;
    panel.setText(kYaml);
    auto* form = panel.form();
    form->precisionBox()->setCurrentIndex(2);  // FP16 mixed
    QVERIFY(panel.text().contains("  MIXED_PRECISION: True\n"));
    QVERIFY2(panel.text().contains("AMP:\n  DTYPE: float16\n"), qPrintable(panel.text()));
    // ... which the engine refuses on the CPU, naming the key and the line.
    QCOMPARE(panel.errorCount(), 1);
    QCOMPARE(panel.diagnostics().front().key, std::string("AMP.DTYPE"));
    QCOMPARE(panel.diagnostics().front().where.line, 10);
    QVERIFY(form->problem().contains("1 error"));
    qobject_cast<QComboBox*>(form->field("NUM_GPUS"))->setCurrentIndex(1);  // GPU
    QVERIFY(panel.text().contains("NUM_GPUS: 1\n"));
    QCOMPARE(panel.errorCount(), 0);
    QVERIFY(form->problem().isEmpty());
    QCOMPARE(panel.config()->getString("AMP.DTYPE"), std::string("float16"));
    QVERIFY(form->field("AMP.INIT_SCALE")->isEnabled());  // fp16 scales the loss
    form->precisionBox()->setCurrentIndex(1);             // FP32
    QVERIFY(panel.text().contains("  MIXED_PRECISION: False\n"));
    QVERIFY(!panel.config()->getBool("TRAIN.MIXED_PRECISION"));
    QVERIFY(!form->ampLrButton()->isEnabled());  // the AMP LR advice is for AMP runs

    form->precisionBox()->setCurrentIndex(3);  // BF16 mixed
    QVERIFY(form->ampLrButton()->isEnabled());
    form->ampLrButton()->click();
    QVERIFY2(panel.text().contains("SOLVER:\n  BASE_LR: 0.004\n  MAX_EPOCH: 10\n  LR_SCALE: 0.6\n"),
             qPrintable(panel.text()));
    QCOMPARE(panel.config()->getFloat("SOLVER.LR_SCALE"), 0.6);
    QVERIFY(!form->ampLrButton()->isEnabled());

    auto* checkpointing = qobject_cast<QCheckBox*>(form->field("MODEL.ACT_CHECKPOINT"));
    QVERIFY(checkpointing && !checkpointing->isChecked());
    checkpointing->setChecked(true);
    QVERIFY2(panel.text().contains("MODEL:\n  ACT_CHECKPOINT: True\n"), qPrintable(panel.text()));
    QVERIFY(panel.config()->getBool("MODEL.ACT_CHECKPOINT"));

    auto* tensorBoard = qobject_cast<QCheckBox*>(form->field("TENSORBOARD.ENABLE"));
    QVERIFY(tensorBoard && !tensorBoard->isChecked());
    tensorBoard->setChecked(true);
    QVERIFY2(panel.text().contains("TENSORBOARD:\n  ENABLE: True\n"), qPrintable(panel.text()));
    QVERIFY(panel.config()->getBool("TENSORBOARD.ENABLE"));

    auto* batch = qobject_cast<QSpinBox*>(form->field("TRAIN.BATCH_SIZE"));
    batch->setValue(32);
    QVERIFY(panel.text().contains("  BATCH_SIZE: 32  # per step\n"));  // the comment stays
    QVERIFY(panel.text().startsWith("# my experiment\n"));
    QCOMPARE(panel.config()->getInt("TRAIN.BATCH_SIZE"), 32);
    QVERIFY(panel.isDirty());
    // One undo step per form edit.
    panel.textEdit()->undo();
    QVERIFY(panel.text().contains("  BATCH_SIZE: 8  # per step\n"));
  }

  void processesSetTheDataParallelKeys() {
    widgets::ConfigEditorPanel panel;
    panel.setText(kYaml);
    auto* form = panel.form();
    auto* processes = qobject_cast<QSpinBox*>(form->field("DIST.CPU_PROCESSES"));
    QVERIFY(processes);
    QCOMPARE(processes->value(), 1);
    auto unit = [&] {  // the word after the box
      for (auto* label : processes->parentWidget()->findChildren<QLabel*>())
        if (label->text().startsWith("process")) return label->text();
      return QString();
    };
    QCOMPARE(unit(), QString("process"));
    processes->setValue(2);  // CPU: two processes sharing the cores
    QCOMPARE(unit(), QString("processes"));
    QCOMPARE(panel.config()->getInt("DIST.CPU_PROCESSES"), 2);
    QCOMPARE(panel.config()->getInt("NUM_GPUS"), 0);
    qobject_cast<QComboBox*>(form->field("NUM_GPUS"))->setCurrentIndex(1);  // GPU: two GPUs
    QCOMPARE(panel.config()->getInt("NUM_GPUS"), 2);
    QCOMPARE(panel.config()->getInt("DIST.CPU_PROCESSES"), 1);
    processes->setValue(4);
    QCOMPARE(panel.config()->getInt("NUM_GPUS"), 4);
    // 8 clips over 3 GPUs cannot split: the engine's message, naming the keys.
    processes->setValue(3);
    QCOMPARE(panel.errorCount(), 1);
    const auto& d = panel.diagnostics().front();
    QVERIFY2(d.message.find("not divisible by NUM_GPUS 3") != std::string::npos, d.message.c_str());
    // And from the text back to the form.
    QString text = panel.text();
    text.replace("NUM_GPUS: 3", "NUM_GPUS: 8");
    panel.setText(text);
    QCOMPARE(processes->value(), 8);
  }

  void textEditsReachTheForm() {
    widgets::ConfigEditorPanel panel;
    panel.setText(kYaml);
    QString text = panel.text();
    text.replace("MAX_EPOCH: 10", "MAX_EPOCH: 25");
    text.replace("NUM_GPUS: 0", "NUM_GPUS: 1");
    panel.setText(text);
    QCOMPARE(qobject_cast<QSpinBox*>(panel.form()->field("SOLVER.MAX_EPOCH"))->value(), 25);
    QCOMPARE(qobject_cast<QComboBox*>(panel.form()->field("NUM_GPUS"))->currentIndex(), 1);
  }

  void invalidTextIsRefusedWithTheEnginesMessage() {
    widgets::ConfigEditorPanel panel;
    panel.setText(QString(kYaml).replace("BATCH_SIZE: 8", "BATCH_SIZE: -3"));
    QCOMPARE(panel.errorCount(), 1);
    QVERIFY(!panel.config());
    QVERIFY(panel.form()->problem().contains("1 error"));
    bool named = false;
    for (const auto& d : panel.diagnostics())
      named = named || (d.key == "TRAIN.BATCH_SIZE" && d.where.line == 3);
    QVERIFY(named);
    // The form's fields cannot take what the schema refuses.
    auto* batch = qobject_cast<QSpinBox*>(panel.form()->field("TRAIN.BATCH_SIZE"));
    QCOMPARE(batch->minimum(), 1);
    auto* backoff = qobject_cast<QDoubleSpinBox*>(panel.form()->field("AMP.BACKOFF_FACTOR"));
    QVERIFY(backoff->minimum() > 0 && backoff->maximum() < 1);
    QVERIFY(batch->toolTip().contains("TRAIN.BATCH_SIZE"));
  }

  void aFlowStyleSectionIsLeftToTheText() {
    widgets::ConfigEditorPanel panel;
    panel.setText("SOLVER: {BASE_LR: 0.1, MAX_EPOCH: 3}\n");
    QString error;
    QVERIFY(!panel.applyKeyEdits({{"SOLVER.BASE_LR", 0.2}}, &error));
    QVERIFY(error.contains("SOLVER.BASE_LR"));
    QCOMPARE(panel.text(), QString("SOLVER: {BASE_LR: 0.1, MAX_EPOCH: 3}\n"));
  }
};

QTEST_MAIN(TestPrecisionForm)
#include "tst_precisionform.moc"
