#pragma once
// Changes one key of a PySlowFast YAML file as text, keeping everything else (comments, order,
// blank lines) as the user wrote it: how the studio's form writes into the editor.
#include <optional>
#include <string>

#include "config/KeySchema.h"

namespace amp::config {

/// YAML text for a value in block style: True / False, numbers as written by formatNumber,
/// strings plain when YAML reads them back as the same string, else single-quoted; lists in
/// flow style ([1, 2]).
std::string yamlScalarText(const Value& v);

/// Sets `dottedKey` (e.g. "SOLVER.BASE_LR") to `valueText` in block-style YAML `text`: replaces
/// the value after an existing "BASE_LR:" inside "SOLVER:" (an inline comment stays), or adds the
/// key at the end of its section, or adds the section at the end. Returns the new text; nullopt
/// with `error` when the key sits inside a flow mapping ("SOLVER: {BASE_LR: 1}") or under a key
/// that holds a value rather than a section.
[[nodiscard]] std::optional<std::string> setYamlKey(const std::string& text,
                                                    const std::string& dottedKey,
                                                    const std::string& valueText,
                                                    std::string* error = nullptr);

}  // namespace amp::config
