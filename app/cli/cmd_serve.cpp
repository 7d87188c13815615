// raidscope-cli serve: the array as an NBD export (engine/export) until
// Ctrl-C or SIGTERM, with an optional FUSE file for a local filesystem.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "args.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "export/server.hpp"
#include "fuse_export.hpp"
#include "member_failures.hpp"
#include "open_array.hpp"
#include "serve_console.hpp"

namespace rs::cli {

namespace {

std::string default_socket(const std::string& name) {
  const char* run = std::getenv("XDG_RUNTIME_DIR");
  return std::string(run && *run ? run : "/tmp") + "/raidscope-" + name + ".sock";
}

void check_name(const std::string& name) {
  if (Status s = nbd::check_export_name(name); !s) throw UsageError("--name: " + s.error().message);
}

raid::AssembleOptions serve_assembly(const Args& a) {
  raid::AssembleOptions o;
  o.read_only = a.flag("read-only");
  o.run = a.flag("run");
  o.start_dirty_degraded = a.flag("force-dirty-degraded");
  allow_unprotected_members(a.flag("force"));
  return o;
}

void say_serving(const nbd::Server& server, const session::SessionStatus& st, const Args& a) {
  const nbd::ExportInfo& e = server.info();
  std::printf("serving %s of %d members (%s, %s) as export '%s'%s\n", st.level.c_str(), st.raid_disks,
              serve_human(e.size).c_str(), st.state.c_str(), e.name.c_str(),
              (e.flags & nbd::kReadOnly) ? ", read-only" : "");
  std::printf("  uri: %s\n", server.uri().c_str());
  std::printf("  block sizes: minimum %u, preferred %u, maximum %u bytes\n", e.minimum, e.preferred,
              e.maximum);
  if (!server.address().loopback)
    std::printf(
        "  warning: listening on %s, reachable from other machines (--listen-any): NBD has no "
        "authentication\n",
        server.address().text().c_str());
  if (!a.flag("read-only")) std::printf("  commands on standard input: fail PATH, add PATH, status, stop\n");
  std::fflush(stdout);
}

}  // namespace

int cmd_serve(const Argv& argv) {
  Args a(argv, {"nbd", "name", "fuse"}, {"read-only", "listen-any", "run", "force", "force-dirty-degraded"});
  const std::string name = a.value("name").value_or("raidscope");
  check_name(name);
  auto address = nbd::parse_listen_address(a.value("nbd").value_or("unix:" + default_socket(name)));
  if (!address) raise(address.error());
  if (Status s = nbd::check_exposure(*address, a.flag("listen-any")); !s) throw UsageError(s.error().message);
  if (a.positional().empty()) throw UsageError("no members given");

  OpenArray arr = open_or_throw(a.positional(), serve_assembly(a), "serve");
  MemberFailures failures(arr.array(), arr.session);
  // The array stays open without this command's client, so it is marked
  // clean whenever no NBD client is connected (md's safe mode).
  arr.session->keep_open(true);
  arr.client.detach();

  std::mutex out_mutex;
  nbd::ServerOptions so;
  so.address = *address;
  so.name = name;
  so.read_only = a.flag("read-only");
  so.listen_any = a.flag("listen-any");
  so.log = [&out_mutex](const std::string& line) {
    std::lock_guard lock(out_mutex);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  auto server = check(nbd::Server::start(arr.session, so));
  say_serving(*server, arr.session->status(), a);
  std::unique_ptr<FuseExport> fuse;
  if (auto dir = a.value("fuse")) {
    fuse =
        std::make_unique<FuseExport>(*dir, server->address(), name, server->info().size, a.flag("read-only"));
    std::printf("  file: %s (losetup -f --show %s, then mkfs and mount the loop device)\n",
                fuse->file().c_str(), fuse->file().c_str());
    std::fflush(stdout);
  }

  ServeConsole console(arr.session);
  uint64_t seen = 0;  // from the open on: a resync the assemble started shows too
  while (!interrupted_signal() && console.poll(100)) {
    {
      std::lock_guard lock(out_mutex);
      failures.print();
    }
    for (const auto& e : arr.session->events_since(seen)) {
      seen = e.seq;
      if ((e.kind == "member" && e.value != "faulty") || e.kind == "task") {
        std::lock_guard lock(out_mutex);
        std::printf("%s %s: %s%s\n", e.kind.c_str(), e.name.c_str(), e.value.c_str(),
                    e.message.empty() ? "" : (" (" + e.message + ")").c_str());
        std::fflush(stdout);
      }
    }
  }
  std::printf("stopping: %s\n", interrupted_signal() ? "signal received" : "stop typed");
  std::fflush(stdout);
  if (fuse) fuse->stop();
  server->stop();
  check(arr.session->close().wait());
  std::printf("stopped; the array was closed cleanly\n");
  return failures.print();
}

}  // namespace rs::cli
