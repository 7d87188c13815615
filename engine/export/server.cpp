#include "export/server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "export/listener.hpp"
#include "raid/array.hpp"

namespace rs::nbd {

namespace {

// The largest power of two that divides `bytes` (0 for 0).
uint64_t pow2_part(uint64_t bytes) {
  return bytes & (~bytes + 1);
}

std::string peer_name(const sockaddr_storage& ss, uint64_t n) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (ss.ss_family == AF_INET6) {
    auto* in = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in->sin6_port));
  }
  return "#" + std::to_string(n);  // unix sockets have no peer address
}

}  // namespace

Status check_export_name(const std::string& name) {
  if (name.empty() || name.size() > 64 ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
          std::string::npos)
    return make_error(Errc::invalid_argument,
                      "export name '" + name + "': 1 to 64 letters, digits, '-', '_' or '.'");
  return {};
}

ExportInfo export_info(const raid::Array& array, const std::string& name, bool read_only) {
  ExportInfo e;
  e.name = name;
  e.size = array.size_bytes();
  e.description = std::string(array.level().name) + " of " + std::to_string(array.raid_disks()) + " members";
  e.minimum = array.io_unit_bytes();
  e.maximum = 32u << 20;
  const uint64_t optimal = pow2_part(array.personality().optimal_io_bytes());
  e.preferred = uint32_t(
      std::clamp<uint64_t>(optimal ? optimal : 4096, std::max<uint32_t>(e.minimum, 4096), e.maximum));
  e.flags = kHasFlags | kSendFlush | kSendFua | kSendTrim | kSendWriteZeroes | kCanMultiConn;
  if (read_only) e.flags |= kReadOnly;
  return e;
}

Result<std::unique_ptr<Server>> Server::start(std::shared_ptr<session::ArraySession> session,
                                              ServerOptions options) {
  if (Status s = check_exposure(options.address, options.listen_any); !s) return s.error();
  if (Status s = check_export_name(options.name); !s) return s.error();
  if (!session || !session->is_open()) return make_error(Errc::invalid_argument, "no open array to serve");
  ExportInfo info;
  {
    // A viewer, to read what the array is: it submits no I/O.
    auto probe = session->attach(session::ClientKind::gui, "nbd export setup");
    if (!probe) return probe.error();
    info = export_info(probe->array(), options.name, options.read_only || session->read_only());
  }
  auto fd = open_listener(options.address);
  if (!fd) return fd.error();
  return std::unique_ptr<Server>(new Server(std::move(session), std::move(options), std::move(info), *fd));
}

Server::Server(std::shared_ptr<session::ArraySession> session, ServerOptions options, ExportInfo info, int fd)
    : session_(std::move(session)), options_(std::move(options)), info_(std::move(info)), listen_fd_(fd) {
  wake_fd_.reset(::eventfd(0, EFD_CLOEXEC));
  acceptor_ = std::thread([this] { accept_loop(); });
}

Server::~Server() {
  stop();
}

void Server::stop() {
  std::call_once(stopped_, [this] {
    stopping_.store(true, std::memory_order_release);
    const uint64_t one = 1;
    (void)!::write(wake_fd_.get(), &one, sizeof one);
    acceptor_.join();
    listen_fd_.reset();
    wake_fd_.reset();
    if (options_.address.kind == ListenAddress::Kind::unix_socket) ::unlink(options_.address.path.c_str());
    std::vector<std::unique_ptr<Connection>> all;
    {
      std::lock_guard lock(mutex_);
      all.swap(connections_);
    }
    for (auto& c : all) c->stop();
    all.clear();  // joins each
  });
}

size_t Server::connections() const {
  std::lock_guard lock(mutex_);
  return size_t(
      std::count_if(connections_.begin(), connections_.end(), [](auto& c) { return !c->finished(); }));
}

uint64_t Server::replies_to_sender() const {
  std::lock_guard lock(mutex_);
  uint64_t n = reaped_replies_to_sender_;
  for (const auto& c : connections_) n += c->replies_to_sender();
  return n;
}

void Server::reap(bool all) {
  std::vector<std::unique_ptr<Connection>> done;
  {
    std::lock_guard lock(mutex_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      if (all || (*it)->finished()) {
        reaped_replies_to_sender_ += (*it)->replies_to_sender();  // the count outlives the connection
        done.push_back(std::move(*it));
        it = connections_.erase(it);
      } else {
        ++it;
      }
    }
  }
  done.clear();  // joins outside the lock
}

void Server::accept_loop() {
  while (!stopping_.load(std::memory_order_acquire)) {
    pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0}, {wake_fd_.get(), POLLIN, 0}};
    if (::poll(fds, 2, 1000) < 0 && errno != EINTR) break;
    reap(false);
    if (stopping_.load(std::memory_order_acquire)) break;
    if (!(fds[0].revents & POLLIN)) continue;
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    const int fd = ::accept4(listen_fd_.get(), reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const std::string peer = peer_name(ss, ++next_peer_);
    if (connections() >= options_.max_connections) {
      if (options_.log)
        options_.log("client " + peer + " refused: " + std::to_string(options_.max_connections) +
                     " connections are open already");
      UniqueFd refused(fd);  // closed here: the client is hung up on
      continue;
    }
    if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
      const int one = 1;
      (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    auto c = std::make_unique<Connection>(fd, peer, session_, info_, options_.log, options_.receive_on_ring);
    std::lock_guard lock(mutex_);
    connections_.push_back(std::move(c));
  }
}

}  // namespace rs::nbd
