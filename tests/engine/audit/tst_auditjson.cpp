#include <QtTest>

#include <cmath>
#include <limits>

#include "audit/AuditJson.h"

using namespace amp;

class TestAuditJson : public QObject {
  Q_OBJECT

  static audit::PrecisionAuditReport sample() {
    audit::PrecisionAuditReport r;
    audit::LayerAudit a;
    a.index = 0;
    a.name = "s1.pathway0_stem.conv";
    a.op = "conv3d";
    a.module = "s1.pathway0_stem.conv";
    a.dtype = "bfloat16";
    a.why = "lower precision";
    a.act_absmax = 12.5;
    a.headroom_log2 = std::log2(65504.0 / 12.5);
    a.bf16_rel_error = 0.004;
    a.has_grad = true;
    a.grad_absmax = 3e-3;
    a.grad_elements = 1000;
    a.grad_nonzero = 990;
    a.fp16_underflow_fraction = 0.25;
    a.fp16_subnormal_fraction = 0.5;
    a.overflow_scale = 65504.0 / 3e-3;
    audit::LayerAudit b;  // an all-zero output without gradient, not compared: every "none"
    b.index = 1;
    b.name = "relu (after s1.pathway0_stem.bn)";
    b.op = "relu";
    b.dtype = "float32";
    b.why = "no list";
    b.nonfinite_grad = true;
    r.layers = {a, b};
    r.summary.precision = "bf16";
    r.summary.device = "cpu";
    r.summary.batches = 2;
    r.summary.batch_size = 4;
    r.summary.safe_scale_min = 0.02;
    r.summary.overflow_layer = "head.projection";
    r.summary.min_headroom_log2 = a.headroom_log2;
    r.summary.min_headroom_layer = a.name;
    r.summary.nonfinite_layer = b.name;
    r.summary.suggested_init_scale = 4096;
    r.summary.bf16_safer = true;
    r.summary.recommendation = "AMP.INIT_SCALE 4096";
    r.notes = {"MODEL.ACT_CHECKPOINT off for the audit"};
    r.losses = {2.1, 2.0};
    r.skipped_steps = 1;
    r.audit_seconds = 3.5;
    return r;
  }

 private slots:
  void roundTripKeepsEveryFieldAndEveryNone() {
    const auto r = sample();
    // Through text, as the studio reads the CLI's output.
    const auto j = nlohmann::json::parse(audit::auditReportToJson(r).dump());
    audit::PrecisionAuditReport back;
    std::string error;
    QVERIFY2(audit::auditReportFromJson(j, back, &error), error.c_str());
    QCOMPARE(back.layers.size(), size_t(2));
    const auto& a = back.layers[0];
    QCOMPARE(a.name, r.layers[0].name);
    QCOMPARE(a.why, r.layers[0].why);
    QCOMPARE(a.headroom_log2, r.layers[0].headroom_log2);
    QCOMPARE(a.bf16_rel_error, 0.004);
    QCOMPARE(a.grad_nonzero, std::int64_t{990});
    QCOMPARE(a.fp16_underflow_fraction, 0.25);
    QCOMPARE(a.overflow_scale, r.layers[0].overflow_scale);
    const auto& b = back.layers[1];
    QVERIFY(std::isinf(b.headroom_log2) &&
            b.headroom_log2 > 0);           // all-zero output: unlimited headroom
    QVERIFY(std::isnan(b.bf16_rel_error));  // not compared
    QVERIFY(std::isinf(b.overflow_scale));  // no gradient: never overflows
    QVERIFY(b.nonfinite_grad && !b.has_grad);
    const auto& s = back.summary;
    QCOMPARE(s.precision, std::string("bf16"));
    QCOMPARE(s.batch_size, 4);
    QVERIFY(std::isinf(s.safe_scale_max));
    QCOMPARE(s.safe_scale_min, 0.02);
    QCOMPARE(s.nonfinite_layer, r.summary.nonfinite_layer);
    QCOMPARE(s.suggested_init_scale, 4096.0);
    QVERIFY(s.bf16_safer);
    QVERIFY(std::isnan(s.max_bf16_rel_error));
    QCOMPARE(s.recommendation, std::string("AMP.INIT_SCALE 4096"));
    QCOMPARE(back.notes, r.notes);
    QCOMPARE(back.losses, r.losses);
    QCOMPARE(back.skipped_steps, 1);
  }

  void aWrongFieldIsNamed_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("not an object") << "[1, 2]"
                                   << "not a JSON object";
    QTest::newRow("no layers") << R"({"summary": {}})"
                               << "layers: missing or not a list";
    QTest::newRow("layer type")
        << R"({"layers": [{"name": "a"}, {"headroom_log2": "big"}], "summary": {}})"
        << "layers[1].headroom_log2: not a number";
    QTest::newRow("no summary") << R"({"layers": []})"
                                << "summary: missing";
    QTest::newRow("notes") << R"({"layers": [], "summary": {}, "notes": [3]})"
                           << "notes: not a list of strings";
  }
  void aWrongFieldIsNamed() {
    QFETCH(QString, json);
    QFETCH(QString, message);
    audit::PrecisionAuditReport r = sample();
    std::string error;
    QVERIFY(!audit::auditReportFromJson(nlohmann::json::parse(json.toStdString()), r, &error));
    QCOMPARE(QString::fromStdString(error), message);
    QCOMPARE(r.layers.size(), size_t(2));  // untouched on failure
  }
};

QTEST_GUILESS_MAIN(TestAuditJson)
#include "tst_auditjson.moc"
