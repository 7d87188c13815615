// One owner per array per process: opening members that are open already
// returns their session (by identity, whatever the names), a member set that
// overlaps an open array's without being it is refused, and an array is
// assembled again only once its session has closed.
#include <unistd.h>

#include "session_test_util.hpp"

using namespace rs;
using namespace rs::session;
using namespace rs::session::test;

TEST_CASE("registry: the same members, by any name, give the one open session", "[session][registry]") {
  TempDir dir("rs-session");
  const auto paths = make_array(dir, 1, 2);
  const uint64_t assembles = raid::Array::assemble_count();
  auto a = open_session(paths);
  CHECK(raid::Array::assemble_count() == assembles + 1);
  auto b = open_session(paths);
  CHECK(b.get() == a.get());
  // Another order, and another name for a member (a symlink to it).
  REQUIRE(::symlink(paths[0].c_str(), dir.file("link0.img").c_str()) == 0);
  auto c = open_session({paths[1], dir.file("link0.img")});
  CHECK(c.get() == a.get());
  CHECK(raid::Array::assemble_count() == assembles + 1);
  CHECK(ArraySession::open_sessions().size() >= 1);

  // Closed: the next open assembles afresh and is another session.
  require_ok(a->close().wait());
  CHECK(!a->is_open());
  CHECK(!b->is_open());
  auto d = open_session(paths);
  CHECK(d.get() != a.get());
  CHECK(raid::Array::assemble_count() == assembles + 2);
}

TEST_CASE("registry: a member set that overlaps an open array's is refused, naming it",
          "[session][registry]") {
  TempDir dir("rs-session");
  const auto paths = make_array(dir, 1, 3);
  const auto other = make_array(dir, 1, 2, 48ull << 20, "o");
  auto s = open_session(paths);
  const uint64_t assembles = raid::Array::assemble_count();
  for (const auto& given :
       std::vector<std::vector<std::string>>{{paths[0], paths[1]},                      // a subset
                                             {paths[0], paths[1], paths[2], other[0]},  // a superset
                                             {paths[0], other[0], other[1]}}) {  // members of two arrays
    auto r = ArraySession::open(given);
    REQUIRE(!r);
    CHECK(r.error().code == Errc::busy);
    INFO(r.error().message);
    CHECK(r.error().message.find(paths[2]) != std::string::npos);  // names the open array's members
  }
  CHECK(raid::Array::assemble_count() == assembles);  // refused before any assemble
  // Creating over an open member is refused before anything is written.
  raid::CreateOptions o;
  o.level = 1;
  o.raid_disks = 2;
  auto made = ArraySession::create(o, {paths[0], dir.file("new.img")});
  REQUIRE(!made);
  CHECK(made.error().code == Errc::busy);
  CHECK(::access(dir.file("new.img").c_str(), F_OK) != 0);
  // The other array is free to open beside it.
  auto t = open_session(other);
  CHECK(t.get() != s.get());
}

TEST_CASE("registry: an array open read-only is not reopened for writing", "[session][registry]") {
  TempDir dir("rs-session");
  const auto paths = make_array(dir, 1, 2);
  raid::AssembleOptions ro;
  ro.read_only = true;
  auto looking = ArraySession::open(paths, ro);
  REQUIRE(looking);
  CHECK((*looking)->read_only());
  auto writing = ArraySession::open(paths);
  REQUIRE(!writing);
  CHECK(writing.error().code == Errc::busy);
  CHECK(writing.error().message.find("read-only") != std::string::npos);
  // A second reader shares it.
  auto again = ArraySession::open(paths, ro);
  REQUIRE(again);
  CHECK(again->get() == looking->get());
}

TEST_CASE("registry: a created array is the open session of its members", "[session][registry]") {
  TempDir dir("rs-session");
  raid::CreateOptions o;
  o.level = 1;
  o.raid_disks = 2;
  o.create_files_bytes = 32ull << 20;
  const std::vector<std::string> paths = {dir.file("c0.img"), dir.file("c1.img")};
  auto made = ArraySession::create(o, paths);
  INFO((made ? std::string() : made.error().message));
  REQUIRE(made);
  const uint64_t assembles = raid::Array::assemble_count();
  auto opened = open_session(paths);
  CHECK(opened.get() == made->get());
  CHECK(raid::Array::assemble_count() == assembles);
  const SessionStatus st = opened->status();
  CHECK(st.level == "raid1");
  CHECK(st.raid_disks == 2);
  REQUIRE(st.members.size() == 2);
  CHECK(st.members[1].path == paths[1]);
  CHECK(st.members[1].state == "active sync");
}
