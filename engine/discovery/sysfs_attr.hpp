// Reading sysfs attributes: one value per file, text, a trailing newline.
// A missing or unreadable attribute is "not reported", never an error: the
// kernel leaves out what a driver does not know (a virtio disk has no model,
// a loop device no serial).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace rs::discovery {

// The first line of `file` without its newline and trailing blanks (SCSI
// pads model names); "" when the file is missing or unreadable.
std::string read_attr(const std::filesystem::path& file);

// The attribute as an unsigned decimal number; nullopt when missing or not a number.
std::optional<uint64_t> read_uint_attr(const std::filesystem::path& file);

// "7:3" for a device number.
std::string major_minor(uint64_t rdev);

// The device number in a "dev" attribute ("259:0"); nullopt when missing or malformed.
std::optional<uint64_t> read_dev_attr(const std::filesystem::path& file);

}  // namespace rs::discovery
