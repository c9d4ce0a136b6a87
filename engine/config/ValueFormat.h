#pragma once
// Text forms of config values: shortest round-trip numbers and Python-like display.
#include <string>

#include <nlohmann/json.hpp>

namespace amp::config {

/// Shortest text that reads back as the same double; always shows it is a float ("1.0", "1e-06").
std::string formatNumber(double v);
/// Python-like display for messages and the CLI: True, None, 'text', [1, 2.5].
std::string formatValue(const nlohmann::json& v);
/// formatValue for a message: at most `maxChars` of it, then "... (N characters)", so a value
/// of a megabyte from a stranger's file is named, not repeated.
std::string formatValueForMessage(const nlohmann::json& v, std::size_t maxChars = 120);

}  // namespace amp::config
