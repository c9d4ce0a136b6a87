#pragma once
// The precision audit's report as JSON (`ampstudio-cli audit precision --json`, read back by the
// studio's Precision tab): {"layers": [...], "summary": {...}, "recommendation": "...",
// "notes": [...]}, documented in docs/precision-audit.md. JSON has no inf or NaN: null stands
// for "none" (an all-zero output's headroom, a layer without gradient, a forward not compared)
// and reads back as the field's "none" value. Torch-free.
#include <string>

#include <nlohmann/json.hpp>

#include "audit/AuditReport.h"

namespace amp::audit {

nlohmann::json auditReportToJson(const PrecisionAuditReport& report);

/// Reads what auditReportToJson wrote. False with `error` saying what is missing or mistyped
/// ("layers[3].headroom_log2: not a number"). Fields it does not know are ignored.
[[nodiscard]] bool auditReportFromJson(const nlohmann::json& j, PrecisionAuditReport& report,
                                       std::string* error);

}  // namespace amp::audit
