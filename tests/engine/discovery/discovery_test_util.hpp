// Helpers for the discovery tests: temp directories, small files, and
// fixture trees that mimic the parts of /sys and /proc discovery reads.
#pragma once
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "../../common/temp_dir.hpp"
#include <filesystem>
#include <fstream>
#include <string>

#include "discovery/system_roots.hpp"

namespace rs::discovery::test {

// A fresh directory under /tmp, removed with everything in it.
struct TempDir : rs::test::TempDir {
  TempDir() : rs::test::TempDir("rs-discovery") {}
};

// Writes `text` to `path`, creating parent directories.
inline void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path);
  out << text;
  REQUIRE(out.good());
}

// A file of `bytes` zero bytes (sparse).
inline std::string make_file(const TempDir& dir, const std::string& name, off_t bytes = 1 << 20) {
  const std::string p = dir.file(name);
  write_text(p, "");
  REQUIRE(::truncate(p.c_str(), bytes) == 0);
  return p;
}

// A fake system under dir/root: sys/, proc/, dev/ (no device nodes, so
// loop backings are read from sysfs paths).
struct FixtureSystem {
  SystemRoots roots;
  explicit FixtureSystem(const TempDir& dir) {
    roots.sysfs = dir.file("root/sys");
    roots.proc = dir.file("root/proc");
    roots.dev = dir.file("root/dev");
    std::filesystem::create_directories(roots.sysfs + "/block");
    std::filesystem::create_directories(roots.sysfs + "/dev/block");
    std::filesystem::create_directories(roots.dev);
    write_text(roots.proc + "/self/mountinfo",
               "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
               "27 1 254:1 / / rw,relatime - ext4 /dev/vda1 rw\n");
    write_text(roots.proc + "/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
  }

  // A bound loop device loopN (major 7) over `backing`, as the kernel lays
  // it out: /sys/block/loopN/{dev,loop/backing_file,loop/autoclear,holders}
  // and the /sys/dev/block/7:N symlink to it.
  void add_loop(int n, const std::string& backing) {
    const std::string name = "loop" + std::to_string(n);
    const std::string dir = roots.sysfs + "/block/" + name;
    write_text(dir + "/dev", "7:" + std::to_string(n) + "\n");
    write_text(dir + "/loop/backing_file", backing + "\n");
    write_text(dir + "/loop/autoclear", "0\n");
    std::filesystem::create_directories(dir + "/holders");
    std::filesystem::create_directory_symlink("../../block/" + name,
                                              roots.sysfs + "/dev/block/7:" + std::to_string(n));
  }
  void add_partition(int loop, int part, const std::string& major_minor) {
    const std::string name = "loop" + std::to_string(loop) + "p" + std::to_string(part);
    const std::string dir = roots.sysfs + "/block/loop" + std::to_string(loop) + "/" + name;
    write_text(dir + "/partition", std::to_string(part) + "\n");
    write_text(dir + "/dev", major_minor + "\n");
    std::filesystem::create_directories(dir + "/holders");
    std::filesystem::create_directory_symlink("../../block/loop" + std::to_string(loop) + "/" + name,
                                              roots.sysfs + "/dev/block/" + major_minor);
  }
  void add_holder(const std::string& device_dir_in_block, const std::string& holder) {
    std::filesystem::create_directories(roots.sysfs + "/block/" + device_dir_in_block + "/holders/" + holder);
  }
  void add_mount(const std::string& major_minor, const std::string& mountpoint, const std::string& fstype,
                 const std::string& source) {
    std::ofstream out(roots.proc + "/self/mountinfo", std::ios::app);
    out << "300 27 " << major_minor << " / " << mountpoint << " rw,relatime shared:1 - " << fstype << " "
        << source << " rw\n";
  }
  void add_swap(const std::string& name) {
    std::ofstream out(roots.proc + "/swaps", std::ios::app);
    out << name << "\t\t\t\tpartition\t1048572\t\t0\t\t-2\n";
  }
  std::string loop_node(int n) const { return roots.dev + "/loop" + std::to_string(n); }
};

}  // namespace rs::discovery::test
