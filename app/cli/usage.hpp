// raidscope-cli's usage text and each array command's own (`COMMAND
// --help`); bench, simulate and report print their longer help themselves.
#pragma once

namespace rs::cli {

extern const char* const kUsage;

// The usage of `command`, or nullptr when it has none here.
const char* command_usage(const char* command);

}  // namespace rs::cli
