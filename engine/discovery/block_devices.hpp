// The block devices of the system as sysfs describes them: what each is
// (disk, partition, loop, device-mapper, md), its size and queue, who uses
// it, and what it holds (an md superblock, a filesystem). The listing the
// `devices` command and the GUI's Devices page show, and what the safety
// check (safety.hpp) judges. Every root is a parameter, so tests run on
// fixture trees.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "discovery/device_usage.hpp"
#include "discovery/identity.hpp"
#include "discovery/md_member.hpp"
#include "discovery/queue_properties.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

enum class DeviceKind { disk, partition, loop, device_mapper, md };
const char* device_kind_name(DeviceKind k);  // "disk", "partition", "loop", "dm", "md"

struct BlockDevice {
  std::string name;  // "nvme0n1", "sda1", "loop3"
  std::string node;  // "<dev>/<name>"
  uint64_t rdev = 0;
  DeviceKind kind = DeviceKind::disk;
  std::string parent;                   // a partition's disk, else ""
  std::vector<std::string> partitions;  // a disk's partitions, in name order
  std::string model, serial;            // "" where the driver reports none
  uint64_t size_bytes = 0;              // <size> x 512, whatever the block size
  QueueProperties queue;                // the device's own queue (a partition: its disk's)
  // What the storage underneath reports: for a loop device its backing
  // file's or device's (member_queue_properties); the own queue otherwise.
  QueueProperties effective;
  bool removable = false;
  bool read_only = false;
  std::vector<std::string> holders;  // <sysfs>/.../holders: "dm-0", "md127"
  std::optional<LoopBacking> loop;   // a bound loop device: what backs it
  std::string dm_name;               // device-mapper: dm/name
  DeviceUsage usage;                 // mounts, swap, holders, also of its partitions

  // Filled when the scan probes contents (ScanOptions::probe_contents):
  std::optional<MdMembership> md;  // an md superblock on it
  std::string signature;           // what libblkid finds ("an ext4 signature"), "" for none
  std::string probe_error;         // why contents could not be read ("Permission denied"), "" when read
};

struct ScanOptions {
  bool probe_contents = true;  // read the md superblock and libblkid signatures (opens each device read-only)
  bool include_empty = false;  // also devices of size 0 (unbound loop devices, empty drives)
};

// Every block device under <sysfs>/block and its partitions, disks in name
// order (loop2 before loop10), each disk followed by its partitions.
std::vector<BlockDevice> scan_block_devices(const SystemRoots& roots = {}, const ScanOptions& opt = {});

// One device by name ("sda", "sda1", "loop3"); nullopt when sysfs has no such device.
std::optional<BlockDevice> describe_block_device(const std::string& name, const SystemRoots& roots = {},
                                                 const ScanOptions& opt = {});

}  // namespace rs::discovery
