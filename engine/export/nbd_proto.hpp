// The NBD protocol's wire format (NetworkBlockDevice's doc/proto.md): its
// constants, and pure encoders and decoders for the messages this server
// sends and reads. Nothing here does I/O or knows the array, so every
// message is unit-tested and fuzzed on bytes alone.
//
// Every number on the wire is big-endian ("network byte order").
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::nbd {

// ---- magic numbers ----
inline constexpr uint64_t kNbdMagic = 0x4e42444d41474943ull;     // "NBDMAGIC"
inline constexpr uint64_t kOptionMagic = 0x49484156454f5054ull;  // "IHAVEOPT"
inline constexpr uint64_t kOptionReplyMagic = 0x3e889045565a9ull;
inline constexpr uint32_t kRequestMagic = 0x25609513;
inline constexpr uint32_t kSimpleReplyMagic = 0x67446698;
inline constexpr uint32_t kStructuredReplyMagic = 0x668e33ef;

// ---- handshake ----
inline constexpr uint16_t kFlagFixedNewstyle = 1 << 0;  // server handshake flags
inline constexpr uint16_t kFlagNoZeroes = 1 << 1;
inline constexpr uint32_t kClientFixedNewstyle = 1 << 0;  // client flags
inline constexpr uint32_t kClientNoZeroes = 1 << 1;

enum Option : uint32_t {
  kOptExportName = 1,
  kOptAbort = 2,
  kOptList = 3,
  kOptStartTls = 5,
  kOptInfo = 6,
  kOptGo = 7,
  kOptStructuredReply = 8,
};

enum OptionReply : uint32_t {
  kRepAck = 1,
  kRepServer = 2,
  kRepInfo = 3,
  kRepErrUnsup = 0x80000001u,
  kRepErrPolicy = 0x80000002u,
  kRepErrInvalid = 0x80000003u,
  kRepErrUnknown = 0x80000006u,  // no export of that name
  kRepErrShutdown = 0x80000007u,
  kRepErrTooBig = 0x80000009u,
};

enum InfoType : uint16_t { kInfoExport = 0, kInfoName = 1, kInfoDescription = 2, kInfoBlockSize = 3 };

// ---- transmission flags (sent with the export's size) ----
inline constexpr uint16_t kHasFlags = 1 << 0;
inline constexpr uint16_t kReadOnly = 1 << 1;
inline constexpr uint16_t kSendFlush = 1 << 2;
inline constexpr uint16_t kSendFua = 1 << 3;
inline constexpr uint16_t kSendTrim = 1 << 5;
inline constexpr uint16_t kSendWriteZeroes = 1 << 6;
inline constexpr uint16_t kCanMultiConn = 1 << 8;

// ---- commands ----
enum Command : uint16_t {
  kCmdRead = 0,
  kCmdWrite = 1,
  kCmdDisc = 2,
  kCmdFlush = 3,
  kCmdTrim = 4,
  kCmdCache = 5,
  kCmdWriteZeroes = 6,
  kCmdBlockStatus = 7,
};
inline constexpr uint16_t kCmdFlagFua = 1 << 0;
inline constexpr uint16_t kCmdFlagNoHole = 1 << 1;
inline constexpr uint16_t kCmdFlagDf = 1 << 2;
inline constexpr uint16_t kCmdFlagReqOne = 1 << 3;
inline constexpr uint16_t kCmdFlagFastZero = 1 << 4;

// ---- replies ----
inline constexpr uint16_t kReplyFlagDone = 1 << 0;
inline constexpr uint16_t kReplyTypeNone = 0;
inline constexpr uint16_t kReplyTypeOffsetData = 1;
inline constexpr uint16_t kReplyTypeError = 0x8001;

// The errors the protocol defines (Linux's numbers, whatever the host's).
enum NbdErrno : uint32_t {
  kEperm = 1,
  kEio = 5,
  kEnomem = 12,
  kEinval = 22,
  kEnospc = 28,
  kEoverflow = 75,
  kEnotsup = 95,
  kEshutdown = 108,
};
const char* errno_name(uint32_t e);  // "EINVAL"; "error 7" for others

// Sizes of the fixed parts.
inline constexpr size_t kGreetingBytes = 18;      // NBDMAGIC, IHAVEOPT, handshake flags
inline constexpr size_t kOptionHeaderBytes = 16;  // IHAVEOPT, option, length
inline constexpr size_t kRequestBytes = 28;
inline constexpr size_t kSimpleReplyBytes = 16;
inline constexpr size_t kStructuredHeaderBytes = 20;

// Big-endian access.
void put16(std::vector<uint8_t>& out, uint16_t v);
void put32(std::vector<uint8_t>& out, uint32_t v);
void put64(std::vector<uint8_t>& out, uint64_t v);
uint16_t get16(const uint8_t* p);
uint32_t get32(const uint8_t* p);
uint64_t get64(const uint8_t* p);

// What the server offers: one export.
struct ExportInfo {
  std::string name;         // "" is also accepted as the default export
  std::string description;  // NBD_INFO_DESCRIPTION, for humans
  uint64_t size = 0;        // bytes
  uint16_t flags = kHasFlags;
  // NBD_INFO_BLOCK_SIZE: requests off `minimum` are refused (EINVAL);
  // `maximum` bounds a READ's or WRITE's payload.
  uint32_t minimum = 512, preferred = 4096, maximum = 32u << 20;
};

// ---- handshake messages ----
std::vector<uint8_t> encode_greeting();
struct OptionHeader {
  uint32_t option = 0;
  uint32_t length = 0;
};
// Null when the magic is not IHAVEOPT.
std::optional<OptionHeader> decode_option_header(const uint8_t* p);
void encode_option_reply(std::vector<uint8_t>& out, uint32_t option, uint32_t type,
                         const uint8_t* payload = nullptr, size_t length = 0);
// An error reply carrying a message for humans.
void encode_option_error(std::vector<uint8_t>& out, uint32_t option, uint32_t type, std::string_view message);
void encode_info_export(std::vector<uint8_t>& out, uint32_t option, const ExportInfo& e);
void encode_info_block_size(std::vector<uint8_t>& out, uint32_t option, const ExportInfo& e);
void encode_info_string(std::vector<uint8_t>& out, uint32_t option, uint16_t info, std::string_view text);
void encode_server_entry(std::vector<uint8_t>& out, const ExportInfo& e);  // NBD_REP_SERVER for LIST
// NBD_OPT_EXPORT_NAME's reply: size, flags and (unless no_zeroes) 124 zero bytes.
void encode_export_name_reply(std::vector<uint8_t>& out, const ExportInfo& e, bool no_zeroes);

// NBD_OPT_GO / NBD_OPT_INFO's data: the export's name and the infos asked
// for. Null when the lengths inside do not add up to `length`.
struct GoRequest {
  std::string name;
  std::vector<uint16_t> infos;
};
std::optional<GoRequest> decode_go(const uint8_t* p, size_t length);

// ---- transmission messages ----
struct Request {
  uint16_t flags = 0;
  uint16_t type = 0;
  uint64_t cookie = 0;  // the client's handle, echoed in the reply
  uint64_t offset = 0;
  uint32_t length = 0;
};
// Null when the magic is wrong (the stream cannot be trusted any more).
std::optional<Request> decode_request(const uint8_t* p);
void encode_request(std::vector<uint8_t>& out, const Request& r);  // for tests and the fuzz driver

void encode_simple_reply(std::vector<uint8_t>& out, uint32_t error, uint64_t cookie);
void encode_structured_header(std::vector<uint8_t>& out, uint16_t flags, uint16_t type, uint64_t cookie,
                              uint32_t length);
// NBD_REPLY_TYPE_OFFSET_DATA's header and offset (the data follows): DONE set.
void encode_read_chunk_header(std::vector<uint8_t>& out, uint64_t cookie, uint64_t offset,
                              uint32_t data_length);
// NBD_REPLY_TYPE_ERROR with a message, DONE set.
void encode_structured_error(std::vector<uint8_t>& out, uint64_t cookie, uint32_t error,
                             std::string_view message);

// What the server does with a request before it touches the array.
struct Verdict {
  uint32_t error = 0;       // 0: serve it; else the NBD error to answer
  std::string message;      // why, for the structured error's text and the log
  bool disconnect = false;  // the stream cannot go on (a write payload too big to read)
};
// The protocol's rules for `r` against the export: the command is known and
// offered, its flags are valid for it, writes on a read-only export are
// EPERM, a range past the end is ENOSPC for writes and EINVAL otherwise,
// offset and length must be multiples of the minimum block size, and a
// READ or WRITE payload may not exceed the maximum.
Verdict check_request(const Request& r, const ExportInfo& e, bool structured);

// "READ", "WRITE", ...; "command 9" for others.
std::string command_name(uint16_t type);

}  // namespace rs::nbd
