// The NBD server on real arrays (image files), driven by a minimal client
// over a unix socket: what it offers, data round trips, the protocol's
// errors, 64 connections at once, a client leaving mid-write, and the
// session closing under a connected client.
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "../../common/wait_until.hpp"
#include "../session/session_test_util.hpp"
#include "export/server.hpp"
#include "nbd_test_client.hpp"

using namespace rs;
using namespace rs::nbd;
using rs::nbd::test::Bytes;
using rs::nbd::test::TestClient;
using rs::session::test::make_array;
using rs::session::test::TempDir;

namespace {

struct Served {
  std::shared_ptr<session::ArraySession> session;
  std::unique_ptr<Server> server;
  std::string socket;
  std::mutex log_mutex;
  std::vector<std::string> log;

  // `receive_on_ring`: ServerOptions::receive_on_ring (false: the reader
  // thread receives, as where io_uring is unavailable).
  Served(const std::vector<std::string>& members, const TempDir& dir, bool read_only = false,
         bool receive_on_ring = true) {
    session::SessionOptions so;
    so.run_sampler = false;
    so.keep_open = true;
    raid::AssembleOptions ao;
    ao.read_only = read_only;
    auto s = session::ArraySession::open(members, ao, so);
    INFO((s ? std::string() : s.error().message));
    REQUIRE(s);
    session = *s;
    socket = dir.file("nbd.sock");
    ServerOptions o;
    o.address = *parse_listen_address("unix:" + socket);
    o.name = "arr";
    o.receive_on_ring = receive_on_ring;
    o.log = [this](const std::string& line) {
      std::lock_guard lock(log_mutex);
      log.push_back(line);
    };
    auto srv = Server::start(session, o);
    INFO((srv ? std::string() : srv.error().message));
    REQUIRE(srv);
    server = std::move(*srv);
  }
  ~Served() {
    if (server) server->stop();
    if (session) (void)session->close().wait();
  }
  bool logged(const std::string& what) {
    std::lock_guard lock(log_mutex);
    for (auto& l : log)
      if (l.find(what) != std::string::npos) return true;
    return false;
  }
  size_t export_clients() const {
    size_t n = 0;
    for (auto& c : session->clients()) n += c.kind == session::ClientKind::export_;
    return n;
  }
};

// A served RAID1 of two 16 MiB members.
struct ServedRaid1 {
  explicit ServedRaid1(bool receive_on_ring = true) : s{members, dir, false, receive_on_ring} {}
  TempDir dir;
  std::vector<std::string> members = make_array(dir, 1, 2, 16ull << 20);
  Served s;
};

Bytes pattern(size_t n, uint32_t seed) {
  Bytes b(n);
  std::mt19937 rng(seed);
  for (auto& x : b) x = uint8_t(rng());
  return b;
}

}  // namespace

TEST_CASE("export of a RAID1: size, block sizes, flags, data round trips and the protocol's errors",
          "[export]") {
  TempDir dir;
  auto members = make_array(dir, 1, 2, 16ull << 20);
  Served s(members, dir);
  const uint64_t size = s.session->status().size_bytes;
  TestClient c(s.socket);
  REQUIRE(c.go("arr"));
  CHECK(c.size == size);
  CHECK(c.minimum == 512);  // md's sector on RAID1 with 512-byte members
  CHECK(c.preferred == 4096);
  CHECK(c.maximum == (32u << 20));
  CHECK((c.flags & (kSendFlush | kSendFua | kSendTrim | kSendWriteZeroes | kCanMultiConn)) ==
        (kSendFlush | kSendFua | kSendTrim | kSendWriteZeroes | kCanMultiConn));
  CHECK_FALSE(c.flags & kReadOnly);
  REQUIRE(rs::test::wait_until([&] { return s.export_clients() == 1; }));

  const Bytes a = pattern(3 << 20, 1);  // three pieces of 1 MiB
  auto w = c.call(kCmdWrite, 1 << 20, uint32_t(a.size()), kCmdFlagFua, a);
  REQUIRE(w.ok);
  CHECK(w.error == 0);
  auto r = c.call(kCmdRead, 1 << 20, uint32_t(a.size()));
  REQUIRE(r.ok);
  CHECK(r.error == 0);
  CHECK(r.data == a);
  CHECK(c.call(kCmdFlush, 0, 0).error == 0);

  // WRITE_ZEROES writes zeros (the array has no holes); TRIM leaves data.
  CHECK(c.call(kCmdWriteZeroes, (1 << 20) + 512, 1024, kCmdFlagNoHole).error == 0);
  r = c.call(kCmdRead, 1 << 20, 2048);
  REQUIRE(r.ok);
  CHECK(std::equal(r.data.begin(), r.data.begin() + 512, a.begin()));
  CHECK(std::all_of(r.data.begin() + 512, r.data.begin() + 1536, [](uint8_t x) { return x == 0; }));
  CHECK(std::equal(r.data.begin() + 1536, r.data.end(), a.begin() + 1536));
  CHECK(c.call(kCmdTrim, 2 << 20, 4096).error == 0);
  r = c.call(kCmdRead, 2 << 20, 4096);
  CHECK(std::equal(r.data.begin(), r.data.end(), a.begin() + (1 << 20)));

  // Errors, each answered and the connection going on.
  CHECK(c.call(kCmdRead, 100, 512).error == kEinval);                   // misaligned
  CHECK(c.call(kCmdWrite, 0, 100, 0, Bytes(100)).error == kEinval);     // misaligned length
  CHECK(c.call(kCmdWrite, size, 512, 0, Bytes(512)).error == kEnospc);  // past the end
  CHECK(c.call(kCmdRead, size - 512, 1024).error == kEinval);           // read past the end
  CHECK(c.call(kCmdCache, 0, 512).error == kEinval);                    // not offered
  CHECK(c.call(kCmdRead, 0, 512, kCmdFlagDf).error == kEinval);         // DF not offered
  r = c.call(kCmdRead, 1 << 20, 512);
  CHECK(r.error == 0);
  CHECK(std::equal(r.data.begin(), r.data.end(), a.begin()));
  CHECK(s.logged("EINVAL"));

  // A second connection without structured replies sees the same data.
  TestClient simple(s.socket);
  REQUIRE(simple.go("", false));
  r = simple.call(kCmdRead, (1 << 20) + 4096, 4096);
  REQUIRE(r.ok);
  CHECK(std::equal(r.data.begin(), r.data.end(), a.begin() + 4096));
  CHECK(simple.call(kCmdRead, 3, 512).error == kEinval);

  // The client's I/O is counted per connection.
  const auto clients = s.session->clients();
  bool counted = false;
  for (auto& cl : clients)
    if (cl.kind == session::ClientKind::export_ && cl.io.write_bytes >= a.size()) counted = true;
  CHECK(counted);

  // DISC: the connection leaves the session.
  REQUIRE(c.send_request(kCmdDisc, 0, 0));
  REQUIRE(simple.send_request(kCmdDisc, 0, 0));
  CHECK(rs::test::wait_until([&] { return s.export_clients() == 0; }));
  CHECK(s.logged("left"));
}

TEST_CASE("export of a RAID5: the unit is 4096, preferred the stripe's power-of-two part", "[export]") {
  TempDir dir;
  auto members = make_array(dir, 5, 4, 16ull << 20);  // 64 KiB chunks, 3 data members
  Served s(members, dir);
  TestClient c(s.socket);
  REQUIRE(c.go());
  CHECK(c.minimum == 4096);
  CHECK(c.preferred == 65536);  // a 192 KiB stripe: 3 x 64 KiB
  CHECK(c.call(kCmdWrite, 512, 4096, 0, Bytes(4096)).error == kEinval);
  const Bytes a = pattern(192 << 10, 2);
  CHECK(c.call(kCmdWrite, 192 << 10, uint32_t(a.size()), 0, a).error == 0);
  auto r = c.call(kCmdRead, 192 << 10, uint32_t(a.size()));
  CHECK(r.data == a);
}

TEST_CASE("a read-only export refuses writes with EPERM", "[export]") {
  TempDir dir;
  auto members = make_array(dir, 1, 2, 8ull << 20);
  Served s(members, dir, true);
  TestClient c(s.socket);
  REQUIRE(c.go());
  CHECK(c.flags & kReadOnly);
  CHECK(c.call(kCmdWrite, 0, 512, 0, Bytes(512)).error == kEperm);
  CHECK(c.call(kCmdWriteZeroes, 0, 512).error == kEperm);
  CHECK(c.call(kCmdRead, 0, 512).error == 0);
}

TEST_CASE("requests sent back to back in one stream: each answered once, the data where it was written",
          "[export]") {
  // The reader takes many requests (and WRITE payloads larger than its
  // buffer, split across what it buffered and what it reads after) from one
  // recv(); the context sends many replies in one sendmsg. Both receivers:
  // the context's ring and the reader thread.
  const bool ring = GENERATE(true, false);
  INFO("received on the ring: " << ring);
  ServedRaid1 f(ring);
  TestClient c(f.s.socket);
  REQUIRE(c.go("arr"));
  constexpr int kRequests = 48;
  std::vector<Bytes> data;
  Bytes stream;
  for (int i = 0; i < kRequests; ++i) {
    // 512 bytes up to 200 KiB: headers land anywhere in the reader's 64 KiB.
    data.push_back(pattern(512u * uint32_t(1 + (i * 37) % 400), uint32_t(500 + i)));
    encode_request(stream, Request{0, kCmdWrite, uint64_t(1000 + i), uint64_t(i) * (256 << 10),
                                   uint32_t(data.back().size())});
    stream.insert(stream.end(), data.back().begin(), data.back().end());
  }
  REQUIRE(write_all(c.fd(), stream.data(), stream.size()));
  std::set<uint64_t> answered;
  for (int i = 0; i < kRequests; ++i) {
    auto m = c.reply();
    REQUIRE(m.ok);
    CHECK(m.error == 0);
    CHECK(answered.insert(m.cookie).second);
  }
  CHECK(answered.size() == kRequests);
  CHECK(*answered.begin() == 1000);
  CHECK(*answered.rbegin() == 1000 + kRequests - 1);

  stream.clear();
  for (int i = 0; i < kRequests; ++i)
    encode_request(stream, Request{0, kCmdRead, uint64_t(2000 + i), uint64_t(i) * (256 << 10),
                                   uint32_t(data[size_t(i)].size())});
  REQUIRE(write_all(c.fd(), stream.data(), stream.size()));
  answered.clear();
  for (int i = 0; i < kRequests; ++i) {
    auto m = c.reply();
    REQUIRE(m.ok);
    CHECK(m.error == 0);
    REQUIRE(m.cookie >= 2000);
    REQUIRE(m.cookie < 2000 + kRequests);
    CHECK(answered.insert(m.cookie).second);
    CHECK(m.data == data[size_t(m.cookie - 2000)]);
  }
  CHECK(c.call(kCmdFlush, 0, 0).error == 0);
}

TEST_CASE("a READ sent before a WRITE whose data comes late is answered without waiting for that data",
          "[export]") {
  // A client may wait for earlier replies before it sends the rest of a
  // payload: what the reader parsed must not wait behind that payload.
  const bool ring = GENERATE(true, false);
  INFO("received on the ring: " << ring);
  ServedRaid1 f(ring);
  TestClient c(f.s.socket);
  REQUIRE(c.go("arr"));
  const Bytes a = pattern(256 << 10, 7);
  REQUIRE(c.call(kCmdWrite, 0, uint32_t(a.size()), 0, a).error == 0);
  const Bytes b = pattern(128 << 10, 8);
  Bytes stream;
  encode_request(stream, Request{0, kCmdRead, 11, 0, uint32_t(a.size())});
  encode_request(stream, Request{0, kCmdWrite, 12, 1 << 20, uint32_t(b.size())});
  stream.insert(stream.end(), b.begin(), b.begin() + 1000);  // the first 1000 bytes only
  REQUIRE(write_all(c.fd(), stream.data(), stream.size()));
  pollfd p{c.fd(), POLLIN, 0};
  REQUIRE(::poll(&p, 1, 60000) == 1);  // a hang here: the READ waits behind the WRITE's data
  auto r = c.reply();
  REQUIRE(r.ok);
  CHECK(r.cookie == 11);
  CHECK(r.data == a);
  REQUIRE(write_all(c.fd(), b.data() + 1000, b.size() - 1000));
  auto w = c.reply();
  REQUIRE(w.ok);
  CHECK(w.cookie == 12);
  CHECK(w.error == 0);
  CHECK(c.call(kCmdRead, 1 << 20, uint32_t(b.size())).data == b);
}

TEST_CASE("more requests sent at once than a connection holds unanswered: every one answered, in any order",
          "[export]") {
  // 600 READs and small WRITEs before the client reads a reply: past
  // Connection::kMaxJobs (256) the receiver stops until replies free room,
  // then goes on with what it had buffered and what is still coming.
  const bool ring = GENERATE(true, false);
  INFO("received on the ring: " << ring);
  ServedRaid1 f(ring);
  TestClient c(f.s.socket);
  REQUIRE(c.go("arr"));
  constexpr int kRequests = 600;
  const Bytes block = pattern(4096, 77);
  Bytes stream;
  for (int i = 0; i < kRequests; ++i) {
    const uint64_t at = uint64_t(i % 100) * 4096;
    if (i < 100) {
      encode_request(stream, Request{0, kCmdWrite, uint64_t(i), at, 4096});
      stream.insert(stream.end(), block.begin(), block.end());
    } else {
      encode_request(stream, Request{0, kCmdRead, uint64_t(i), at, 4096});
    }
  }
  // Sent from another thread: the client reads while the rest goes out.
  bool sent = false;  // Catch's assertions are for the test's own thread
  std::thread sender([&] { sent = write_all(c.fd(), stream.data(), stream.size()); });
  std::set<uint64_t> answered;
  int reads_checked = 0;
  for (int i = 0; i < kRequests; ++i) {
    auto m = c.reply();
    REQUIRE(m.ok);
    CHECK(m.error == 0);
    CHECK(answered.insert(m.cookie).second);
    // A READ sent after every WRITE of its block (the first 100 requests)
    // may still race them: NBD orders nothing between requests in flight.
    if (m.cookie >= 100 && !m.data.empty()) reads_checked += m.data.size() == 4096;
  }
  sender.join();
  CHECK(sent);
  CHECK(answered.size() == kRequests);
  CHECK(reads_checked == kRequests - 100);
  // Once every WRITE is answered, the data is where it was written.
  for (int i = 0; i < 100; i += 33) CHECK(c.call(kCmdRead, uint64_t(i) * 4096, 4096).data == block);
}

TEST_CASE("replies a client leaves unread pile up past the socket's room, then every one arrives whole",
          "[export]") {
  // 12 READs of 1 MiB sent before the client reads anything: more than
  // the server's socket holds (its 4 MiB send buffer, which the kernel
  // doubles at most: 8 MiB, and a unix socket's data waits in it until
  // read), so the replies it cannot take at once go to the sender thread
  // and follow in order, none cut or repeated.
  const bool ring = GENERATE(true, false);
  INFO("received on the ring: " << ring);
  ServedRaid1 f(ring);
  TestClient c(f.s.socket);
  REQUIRE(c.go("arr"));
  constexpr uint32_t kMiB = 1u << 20;
  constexpr int kReads = 12;
  std::vector<Bytes> written;
  for (int i = 0; i < kReads; ++i) {
    written.push_back(pattern(kMiB, 1000 + i));
    REQUIRE(c.call(kCmdWrite, uint64_t(i) * kMiB, kMiB, 0, written.back()).error == 0);
  }
  for (int i = 0; i < kReads; ++i)
    REQUIRE(c.send_request(kCmdRead, uint64_t(i) * kMiB, kMiB, 0, {}, 500 + i));
  // The sender thread took the replies the socket had no room for (the
  // client has read nothing yet, so at least one: 12 MiB > 8 MiB).
  const bool handed = rs::test::wait_until([&] { return f.s.server->replies_to_sender() >= 1; });
  INFO("replies handed to the sender thread in 10 s: " << f.s.server->replies_to_sender());
  REQUIRE(handed);
  std::set<uint64_t> answered;
  for (int i = 0; i < kReads; ++i) {
    auto m = c.reply(kMiB);
    REQUIRE(m.ok);
    REQUIRE(m.error == 0);
    REQUIRE(m.cookie >= 500);
    REQUIRE(m.cookie < 500 + kReads);
    CHECK(answered.insert(m.cookie).second);
    CHECK(m.data == written[m.cookie - 500]);
  }
  CHECK(answered.size() == kReads);
  CHECK(f.s.server->replies_to_sender() <= kReads);
}

TEST_CASE("64 connections at once, each writing and reading its own region", "[export]") {
  TempDir dir;
  auto members = make_array(dir, 1, 2, 16ull << 20);
  Served s(members, dir);
  constexpr int kConns = 64;
  std::atomic<int> good{0}, connected{0};
  std::atomic<bool> hold{true};
  std::vector<std::thread> threads;
  for (int i = 0; i < kConns; ++i)
    threads.emplace_back([&, i] {
      TestClient c(s.socket, TestClient::InThread{});
      if (!c.go()) return;
      ++connected;
      const Bytes a = pattern(64 << 10, uint32_t(100 + i));
      const uint64_t at = uint64_t(i) * (128 << 10);
      bool ok = c.call(kCmdWrite, at, uint32_t(a.size()), 0, a).error == 0;
      while (hold.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      auto r = c.call(kCmdRead, at, uint32_t(a.size()));
      ok = ok && r.ok && r.data == a;
      good += ok;
    });
  CHECK(rs::test::wait_until([&] { return connected.load() == kConns && s.export_clients() == kConns; }));
  CHECK(s.server->connections() == kConns);
  hold = false;
  for (auto& t : threads) t.join();
  CHECK(good == kConns);
  CHECK(rs::test::wait_until([&] { return s.export_clients() == 0; }));
}

TEST_CASE("a client leaving in the middle of a WRITE's data: nothing of it is written", "[export]") {
  TempDir dir;
  auto members = make_array(dir, 1, 2, 8ull << 20);
  const bool ring = GENERATE(true, false);
  INFO("received on the ring: " << ring);
  Served s(members, dir, false, ring);
  {
    TestClient c(s.socket);
    REQUIRE(c.go());
    Bytes part(512 << 10, 0xab);
    // A 1 MiB write with half its data, then gone.
    Bytes head;
    encode_request(head, Request{0, kCmdWrite, 1, 0, 1 << 20});
    REQUIRE(write_all(c.fd(), head.data(), head.size(), part.data(), part.size()));
    c.close_now();
  }
  CHECK(rs::test::wait_until([&] { return s.logged("in the middle of a WRITE"); }));
  CHECK(rs::test::wait_until([&] { return s.export_clients() == 0; }));
  TestClient d(s.socket);
  REQUIRE(d.go());
  auto r = d.call(kCmdRead, 0, 1 << 20);
  REQUIRE(r.ok);
  CHECK(std::all_of(r.data.begin(), r.data.end(), [](uint8_t x) { return x == 0; }));
}

TEST_CASE("closing the session ends its connections; the array is left clean", "[export][needs-tool]") {
  rs::test::require_tool(rs::session::test::mdadm_path(), "the clean mark is read back with mdadm --examine");
  TempDir dir;
  auto members = make_array(dir, 1, 2, 8ull << 20);
  Served s(members, dir);
  TestClient c(s.socket);
  REQUIRE(c.go());
  CHECK(c.call(kCmdWrite, 0, 4096, 0, Bytes(4096, 7)).error == 0);
  auto closed = s.session->close().wait_for(std::chrono::seconds(30));
  REQUIRE(closed);
  CHECK(closed->ok());
  uint8_t b;
  CHECK_FALSE(read_exact(c.fd(), &b, 1));  // the server hung up
  CHECK(rs::session::test::mdadm_examine(members[0])["State"] == "clean");
  s.server->stop();
}

TEST_CASE("listening: tcp on loopback with a chosen port; exposed addresses refused; a live socket kept",
          "[export]") {
  TempDir dir;
  auto members = make_array(dir, 1, 2, 8ull << 20);
  Served s(members, dir);
  ServerOptions o;
  o.address = *parse_listen_address("tcp:127.0.0.1:0");
  auto tcp = Server::start(s.session, o);
  REQUIRE(tcp);
  CHECK((*tcp)->address().port != 0);
  CHECK((*tcp)->uri() == "nbd://127.0.0.1:" + std::to_string((*tcp)->address().port) + "/raidscope");
  o.address = *parse_listen_address("tcp:0.0.0.0:0");
  auto exposed = Server::start(s.session, o);
  REQUIRE_FALSE(exposed);
  CHECK(exposed.error().code == Errc::refused);
  o.address = *parse_listen_address("unix:" + s.socket);
  auto twice = Server::start(s.session, o);  // the first server listens there
  REQUIRE_FALSE(twice);
  CHECK(twice.error().code == Errc::busy);
}
