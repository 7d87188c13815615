#include "export/nbd_proto.hpp"

namespace rs::nbd {

const char* errno_name(uint32_t e) {
  switch (e) {
    case kEperm:
      return "EPERM";
    case kEio:
      return "EIO";
    case kEnomem:
      return "ENOMEM";
    case kEinval:
      return "EINVAL";
    case kEnospc:
      return "ENOSPC";
    case kEoverflow:
      return "EOVERFLOW";
    case kEnotsup:
      return "ENOTSUP";
    case kEshutdown:
      return "ESHUTDOWN";
    default:
      return "error";
  }
}

std::string command_name(uint16_t type) {
  switch (type) {
    case kCmdRead:
      return "READ";
    case kCmdWrite:
      return "WRITE";
    case kCmdDisc:
      return "DISC";
    case kCmdFlush:
      return "FLUSH";
    case kCmdTrim:
      return "TRIM";
    case kCmdCache:
      return "CACHE";
    case kCmdWriteZeroes:
      return "WRITE_ZEROES";
    case kCmdBlockStatus:
      return "BLOCK_STATUS";
    default:
      return "command " + std::to_string(type);
  }
}

void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v >> 8));
  out.push_back(uint8_t(v));
}
void put32(std::vector<uint8_t>& out, uint32_t v) {
  put16(out, uint16_t(v >> 16));
  put16(out, uint16_t(v));
}
void put64(std::vector<uint8_t>& out, uint64_t v) {
  put32(out, uint32_t(v >> 32));
  put32(out, uint32_t(v));
}
uint16_t get16(const uint8_t* p) {
  return uint16_t((p[0] << 8) | p[1]);
}
uint32_t get32(const uint8_t* p) {
  return (uint32_t(get16(p)) << 16) | get16(p + 2);
}
uint64_t get64(const uint8_t* p) {
  return (uint64_t(get32(p)) << 32) | get32(p + 4);
}

std::vector<uint8_t> encode_greeting() {
  std::vector<uint8_t> out;
  put64(out, kNbdMagic);
  put64(out, kOptionMagic);
  put16(out, kFlagFixedNewstyle | kFlagNoZeroes);
  return out;
}

std::optional<OptionHeader> decode_option_header(const uint8_t* p) {
  if (get64(p) != kOptionMagic) return std::nullopt;
  return OptionHeader{get32(p + 8), get32(p + 12)};
}

void encode_option_reply(std::vector<uint8_t>& out, uint32_t option, uint32_t type, const uint8_t* payload,
                         size_t length) {
  put64(out, kOptionReplyMagic);
  put32(out, option);
  put32(out, type);
  put32(out, uint32_t(length));
  if (length) out.insert(out.end(), payload, payload + length);
}

void encode_option_error(std::vector<uint8_t>& out, uint32_t option, uint32_t type,
                         std::string_view message) {
  encode_option_reply(out, option, type, reinterpret_cast<const uint8_t*>(message.data()), message.size());
}

void encode_info_export(std::vector<uint8_t>& out, uint32_t option, const ExportInfo& e) {
  std::vector<uint8_t> p;
  put16(p, kInfoExport);
  put64(p, e.size);
  put16(p, e.flags);
  encode_option_reply(out, option, kRepInfo, p.data(), p.size());
}

void encode_info_block_size(std::vector<uint8_t>& out, uint32_t option, const ExportInfo& e) {
  std::vector<uint8_t> p;
  put16(p, kInfoBlockSize);
  put32(p, e.minimum);
  put32(p, e.preferred);
  put32(p, e.maximum);
  encode_option_reply(out, option, kRepInfo, p.data(), p.size());
}

void encode_info_string(std::vector<uint8_t>& out, uint32_t option, uint16_t info, std::string_view text) {
  std::vector<uint8_t> p;
  put16(p, info);
  p.insert(p.end(), text.begin(), text.end());
  encode_option_reply(out, option, kRepInfo, p.data(), p.size());
}

void encode_server_entry(std::vector<uint8_t>& out, const ExportInfo& e) {
  std::vector<uint8_t> p;
  put32(p, uint32_t(e.name.size()));
  p.insert(p.end(), e.name.begin(), e.name.end());
  encode_option_reply(out, kOptList, kRepServer, p.data(), p.size());
}

void encode_export_name_reply(std::vector<uint8_t>& out, const ExportInfo& e, bool no_zeroes) {
  put64(out, e.size);
  put16(out, e.flags);
  if (!no_zeroes) out.insert(out.end(), 124, uint8_t{0});
}

std::optional<GoRequest> decode_go(const uint8_t* p, size_t length) {
  if (length < 6) return std::nullopt;
  const uint32_t name_len = get32(p);
  if (name_len > length - 6) return std::nullopt;
  GoRequest g;
  g.name.assign(reinterpret_cast<const char*>(p + 4), name_len);
  const uint16_t n = get16(p + 4 + name_len);
  if (length != 6 + size_t(name_len) + 2 * size_t(n)) return std::nullopt;
  for (uint16_t i = 0; i < n; ++i) g.infos.push_back(get16(p + 6 + name_len + 2 * size_t(i)));
  return g;
}

std::optional<Request> decode_request(const uint8_t* p) {
  if (get32(p) != kRequestMagic) return std::nullopt;
  return Request{get16(p + 4), get16(p + 6), get64(p + 8), get64(p + 16), get32(p + 24)};
}

void encode_request(std::vector<uint8_t>& out, const Request& r) {
  put32(out, kRequestMagic);
  put16(out, r.flags);
  put16(out, r.type);
  put64(out, r.cookie);
  put64(out, r.offset);
  put32(out, r.length);
}

void encode_simple_reply(std::vector<uint8_t>& out, uint32_t error, uint64_t cookie) {
  put32(out, kSimpleReplyMagic);
  put32(out, error);
  put64(out, cookie);
}

void encode_structured_header(std::vector<uint8_t>& out, uint16_t flags, uint16_t type, uint64_t cookie,
                              uint32_t length) {
  put32(out, kStructuredReplyMagic);
  put16(out, flags);
  put16(out, type);
  put64(out, cookie);
  put32(out, length);
}

void encode_read_chunk_header(std::vector<uint8_t>& out, uint64_t cookie, uint64_t offset,
                              uint32_t data_length) {
  encode_structured_header(out, kReplyFlagDone, kReplyTypeOffsetData, cookie, data_length + 8);
  put64(out, offset);
}

void encode_structured_error(std::vector<uint8_t>& out, uint64_t cookie, uint32_t error,
                             std::string_view message) {
  const size_t n = std::min<size_t>(message.size(), 4096);  // the protocol's longest string
  encode_structured_header(out, kReplyFlagDone, kReplyTypeError, cookie, uint32_t(6 + n));
  put32(out, error);
  put16(out, uint16_t(n));
  out.insert(out.end(), message.begin(), message.begin() + std::ptrdiff_t(n));
}

namespace {

// The flags a command may carry, given what the export offers.
uint16_t allowed_flags(uint16_t type) {
  // FUA is valid on every command once offered (clients are known to set it
  // on reads and flushes too).
  switch (type) {
    case kCmdWriteZeroes:
      return kCmdFlagFua | kCmdFlagNoHole;
    default:
      return kCmdFlagFua;
  }
}

Verdict refuse(uint32_t error, std::string message, bool disconnect = false) {
  return Verdict{error, std::move(message), disconnect};
}

}  // namespace

Verdict check_request(const Request& r, const ExportInfo& e, bool structured) {
  (void)structured;  // DF is not offered, so no flag depends on it
  const std::string name = command_name(r.type);
  // A WRITE's payload follows the header whatever is wrong with it; one
  // larger than the maximum is not read, so the stream is lost.
  if (r.type == kCmdWrite && r.length > e.maximum)
    return refuse(kEinval,
                  "WRITE of " + std::to_string(r.length) +
                      " bytes: more than the export's maximum block size (" + std::to_string(e.maximum) + ")",
                  true);
  const bool offered = r.type == kCmdRead || r.type == kCmdWrite || r.type == kCmdDisc ||
                       (r.type == kCmdFlush && (e.flags & kSendFlush)) ||
                       (r.type == kCmdTrim && (e.flags & kSendTrim)) ||
                       (r.type == kCmdWriteZeroes && (e.flags & kSendWriteZeroes));
  if (!offered) return refuse(kEinval, name + " is not offered by this export");
  const uint16_t allowed =
      (e.flags & kSendFua) ? allowed_flags(r.type) : uint16_t(allowed_flags(r.type) & ~kCmdFlagFua);
  if (r.flags & ~allowed)
    return refuse(kEinval, name + " with flags it may not carry (" + std::to_string(r.flags) + ")");
  if (r.type == kCmdDisc) return {};
  if (r.type == kCmdFlush) {
    if (r.offset || r.length) return refuse(kEinval, "FLUSH must have offset and length 0");
    return {};
  }
  const bool writes = r.type == kCmdWrite || r.type == kCmdTrim || r.type == kCmdWriteZeroes;
  if (writes && (e.flags & kReadOnly)) return refuse(kEperm, name + " on a read-only export");
  if (r.length == 0) return refuse(kEinval, name + " of 0 bytes");
  if (r.offset > e.size || r.length > e.size - r.offset)
    return refuse(r.type == kCmdWrite || r.type == kCmdWriteZeroes ? kEnospc : kEinval,
                  name + " at " + std::to_string(r.offset) + " of " + std::to_string(r.length) +
                      " bytes runs past the end of the export (" + std::to_string(e.size) + " bytes)");
  if (e.minimum > 1 && (r.offset % e.minimum || r.length % e.minimum))
    return refuse(kEinval, name + " at " + std::to_string(r.offset) + " of " + std::to_string(r.length) +
                               " bytes is not aligned to the minimum block size (" +
                               std::to_string(e.minimum) + " bytes)");
  if (r.type == kCmdRead && r.length > e.maximum)
    return refuse(kEinval, "READ of " + std::to_string(r.length) +
                               " bytes: more than the maximum block size (" + std::to_string(e.maximum) +
                               ")");
  return {};
}

}  // namespace rs::nbd
