#pragma once
// Parses Python literal syntax (what PySlowFast's yacs/fvcore config loader feeds through
// ast.literal_eval): numbers, quoted strings, True/False/None, lists and tuples.
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace amp::config {

/// Parses `text` as one Python literal. Returns nullopt when the text is not a literal
/// (then PySlowFast keeps it as a plain string). Tuples become arrays.
std::optional<nlohmann::json> parsePythonLiteral(std::string_view text);

}  // namespace amp::config
