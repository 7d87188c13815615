// raidscope-cli's usage text and each array command's own (`COMMAND
// --help`); bench, simulate and report print their longer help themselves.
// Where the text names levels, layouts or chunks, it is made from the
// level table (levels::builtin()).
#pragma once
#include <optional>
#include <string>

namespace rs::cli {

std::string usage_text();

// The usage of `command`, or nothing when it has none here.
std::optional<std::string> command_usage(const std::string& command);

}  // namespace rs::cli
