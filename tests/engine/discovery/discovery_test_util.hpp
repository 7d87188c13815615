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
  void add_loop(int n, const std::string& backing, uint64_t sectors = 2048) {
    const std::string name = "loop" + std::to_string(n);
    const std::string dir = roots.sysfs + "/block/" + name;
    write_text(dir + "/dev", "7:" + std::to_string(n) + "\n");
    write_text(dir + "/size", std::to_string(sectors) + "\n");
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
  // A whole disk as a driver lays it out: /sys/block/<name>/{dev,size,
  // removable,ro,queue/...,device/model,device/serial,holders/} and the
  // /sys/dev/block/<dev> symlink.
  struct Disk {
    std::string name, dev;  // "sda", "8:0"
    uint64_t sectors = 1 << 21;
    int rotational = 0;
    uint32_t io_opt = 0, logical_block_size = 512, physical_block_size = 512;
    std::string model, serial;
    bool removable = false;
  };
  void add_disk(const Disk& d) {
    const std::string dir = roots.sysfs + "/block/" + d.name;
    write_text(dir + "/dev", d.dev + "\n");
    write_text(dir + "/size", std::to_string(d.sectors) + "\n");
    write_text(dir + "/removable", std::string(d.removable ? "1" : "0") + "\n");
    write_text(dir + "/ro", "0\n");
    write_text(dir + "/queue/rotational", std::to_string(d.rotational) + "\n");
    write_text(dir + "/queue/optimal_io_size", std::to_string(d.io_opt) + "\n");
    write_text(dir + "/queue/logical_block_size", std::to_string(d.logical_block_size) + "\n");
    write_text(dir + "/queue/physical_block_size", std::to_string(d.physical_block_size) + "\n");
    // SCSI pads the model to 16 characters; discovery trims it.
    if (!d.model.empty()) write_text(dir + "/device/model", d.model + "    \n");
    if (!d.serial.empty()) write_text(dir + "/device/serial", d.serial + "\n");
    std::filesystem::create_directories(dir + "/holders");
    std::filesystem::create_directory_symlink("../../block/" + d.name, roots.sysfs + "/dev/block/" + d.dev);
  }
  // A partition <disk>/<name> of `sectors` (a partition has no queue/ of its own).
  void add_disk_partition(const std::string& disk, const std::string& name, const std::string& dev,
                          uint64_t sectors) {
    const std::string dir = roots.sysfs + "/block/" + disk + "/" + name;
    write_text(dir + "/partition", name.substr(name.find_last_not_of("0123456789") + 1) + "\n");
    write_text(dir + "/dev", dev + "\n");
    write_text(dir + "/size", std::to_string(sectors) + "\n");
    write_text(dir + "/ro", "0\n");
    std::filesystem::create_directories(dir + "/holders");
    std::filesystem::create_directory_symlink("../../block/" + disk + "/" + name, roots.sysfs + "/dev/block/" + dev);
  }
  // The device node <dev>/<name>: here a sparse regular file of `bytes`, so
  // the content probes (md superblock, libblkid) read something.
  std::string add_node(const std::string& name, uint64_t bytes) {
    const std::string p = roots.dev + "/" + name;
    write_text(p, "");
    REQUIRE(::truncate(p.c_str(), off_t(bytes)) == 0);
    return p;
  }
  std::string loop_node(int n) const { return roots.dev + "/loop" + std::to_string(n); }
};

}  // namespace rs::discovery::test
