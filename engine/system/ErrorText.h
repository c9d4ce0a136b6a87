// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace amp::system {

/// The message of an exception for a person: LibTorch's errors without their C++ backtrace
/// (c10::Error::what() appends dozens of stack frames that say nothing to a user).
inline std::string errorText(const std::exception& e) {
  if (const auto* c10e = dynamic_cast<const c10::Error*>(&e)) {
    std::string text = c10e->what_without_backtrace();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }
  return e.what();
}

}  // namespace amp::system
