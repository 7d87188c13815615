// Privileges. The GUI never runs as root; image files need no privilege;
// a block device the user may not open is opened through UDisks2's
// OpenDevice (polkit decides) when UDisks2 runs, and otherwise the refusal
// says plainly which permission is missing and how to get it.
#pragma once
#include <string>

namespace rs::discovery {

// True when this process can see every process's descriptors (root): the
// safety check then names any process holding a device.
bool can_see_other_processes();

// What a listing made without root cannot tell, for a note under it.
std::string limited_view_note();

// Why opening `path` failed with `err` (EACCES/EPERM), and how to get the
// permission: the group that owns the node and its mode, "add yourself to
// group 'disk' (sudo usermod -aG disk $USER, then log in again) or run
// raidscope-cli with sudo"; for a file, its owner and mode. `udisks_note`
// says what UDisks2 did ("" when it was not asked).
std::string missing_permission_message(const std::string& path, int err, const std::string& udisks_note = "");

}  // namespace rs::discovery
