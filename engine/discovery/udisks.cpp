#include "discovery/udisks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#ifdef RAIDSCOPE_HAVE_SDBUS
#include <systemd/sd-bus.h>
#endif

namespace rs::discovery {

#ifndef RAIDSCOPE_HAVE_SDBUS

UdisksOpen udisks_open_device(const std::string&, int) {
  return {-1, "UDisks2 was not asked: this build has no D-Bus support (libsystemd-dev was missing)"};
}

#else

namespace {

constexpr const char* kService = "org.freedesktop.UDisks2";

// Frees what sd-bus hands out when a scope ends.
struct Call {
  sd_bus_error error = SD_BUS_ERROR_NULL;
  sd_bus_message* reply = nullptr;
  ~Call() {
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
  }
  std::string why(int r) const {
    if (sd_bus_error_has_name(&error, "org.freedesktop.DBus.Error.ServiceUnknown") ||
        sd_bus_error_has_name(&error, "org.freedesktop.DBus.Error.NameHasNoOwner"))
      return "UDisks2 is not running";
    return error.message ? error.message : std::strerror(-r);
  }
};

}  // namespace

UdisksOpen udisks_open_device(const std::string& path, int flags) {
  sd_bus* bus = nullptr;
  if (int r = sd_bus_open_system(&bus); r < 0)
    return {-1, std::string("UDisks2 cannot be asked: no system D-Bus (") + std::strerror(-r) + ")"};
  // polkit may ask the user (a password dialog from the desktop's agent).
  sd_bus_set_allow_interactive_authorization(bus, 1);
  UdisksOpen out;
  {
    Call resolve;
    int r = sd_bus_call_method(bus, kService, "/org/freedesktop/UDisks2/Manager", "org.freedesktop.UDisks2.Manager",
                               "ResolveDevice", &resolve.error, &resolve.reply, "a{sv}a{sv}", 1, "path", "s",
                               path.c_str(), 0);
    const char* object = nullptr;
    if (r >= 0) r = sd_bus_message_enter_container(resolve.reply, 'a', "o");
    if (r >= 0) r = sd_bus_message_read(resolve.reply, "o", &object);
    if (r <= 0 || !object) {
      out.note = r < 0 ? "UDisks2 could not be asked about " + path + ": " + resolve.why(r)
                       : "UDisks2 does not know " + path;
    } else {
      Call open;
      const char* mode = (flags & O_ACCMODE) == O_RDONLY ? "r" : (flags & O_ACCMODE) == O_WRONLY ? "w" : "rw";
      const int extra = flags & (O_EXCL | O_DIRECT | O_SYNC);
      r = sd_bus_call_method(bus, kService, object, "org.freedesktop.UDisks2.Block", "OpenDevice", &open.error,
                             &open.reply, "sa{sv}", mode, 1, "flags", "i", extra);
      int fd = -1;
      if (r >= 0) r = sd_bus_message_read(open.reply, "h", &fd);
      if (r < 0 || fd < 0)
        out.note = "UDisks2 did not open " + path + ": " + open.why(r);
      else
        out.fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);  // the message owns fd
    }
  }
  sd_bus_flush_close_unref(bus);
  return out;
}

#endif

}  // namespace rs::discovery
