#include "export/negotiation.hpp"

namespace rs::nbd {

size_t Negotiation::need() const {
  switch (phase_) {
    case Phase::client_flags:
      return 4;
    case Phase::option_header:
      return kOptionHeaderBytes;
    case Phase::option_data:
      return current_.length;
    default:
      return 0;
  }
}

void Negotiation::feed(const uint8_t* data, size_t n, std::vector<uint8_t>& out) {
  if (n != need())
    return close("internal: fed " + std::to_string(n) + " bytes, " + std::to_string(need()) + " needed");
  switch (phase_) {
    case Phase::client_flags: {
      const uint32_t flags = get32(data);
      // The protocol: an unknown client flag ends the connection.
      if (flags & ~(kClientFixedNewstyle | kClientNoZeroes))
        return close("the client set unknown handshake flags (" + std::to_string(flags) + ")");
      no_zeroes_ = flags & kClientNoZeroes;
      phase_ = Phase::option_header;
      return;
    }
    case Phase::option_header: {
      const auto h = decode_option_header(data);
      if (!h) return close("an option without the IHAVEOPT magic");
      if (++options_ > kMaxOptions) return close("more than " + std::to_string(kMaxOptions) + " options");
      if (h->length > kMaxOptionBytes)
        return close("option " + std::to_string(h->option) + " carries " + std::to_string(h->length) +
                     " bytes (at most " + std::to_string(kMaxOptionBytes) + " are read)");
      current_ = *h;
      phase_ = Phase::option_data;
      if (h->length == 0) option(nullptr, out);
      return;
    }
    case Phase::option_data:
      return option(data, out);
    default:
      return;
  }
}

void Negotiation::option(const uint8_t* data, std::vector<uint8_t>& out) {
  phase_ = Phase::option_header;
  const uint32_t opt = current_.option, len = current_.length;
  switch (opt) {
    case kOptExportName: {
      const std::string name(reinterpret_cast<const char*>(data), len);
      // No error reply exists for this option: an unknown name ends it.
      if (!names_export(name))
        return close("the client asked for export '" + name + "', which is not served");
      encode_export_name_reply(out, info_, no_zeroes_);
      phase_ = Phase::transmission;
      return;
    }
    case kOptAbort:
      encode_option_reply(out, opt, kRepAck);
      return close("the client aborted the handshake");
    case kOptList:
      if (len) return encode_option_error(out, opt, kRepErrInvalid, "LIST takes no data");
      encode_server_entry(out, info_);
      return encode_option_reply(out, opt, kRepAck);
    case kOptStructuredReply:
      if (len) return encode_option_error(out, opt, kRepErrInvalid, "STRUCTURED_REPLY takes no data");
      structured_ = true;
      return encode_option_reply(out, opt, kRepAck);
    case kOptInfo:
    case kOptGo:
      return go(opt == kOptGo, data, out);
    case kOptStartTls:
      return encode_option_error(out, opt, kRepErrUnsup, "this server offers no TLS");
    default:
      return encode_option_error(out, opt, kRepErrUnsup,
                                 "option " + std::to_string(opt) + " is not supported");
  }
}

void Negotiation::go(bool go, const uint8_t* data, std::vector<uint8_t>& out) {
  const uint32_t opt = current_.option;
  const auto req = decode_go(data, current_.length);
  if (!req) return encode_option_error(out, opt, kRepErrInvalid, "malformed GO/INFO data");
  if (!names_export(req->name))
    return encode_option_error(out, opt, kRepErrUnknown,
                               "no export named '" + req->name + "'; this server has '" + info_.name + "'");
  encode_info_export(out, opt, info_);
  // Sent whether asked or not (the protocol allows it): the minimum is a
  // hard rule here, unaligned requests get EINVAL.
  encode_info_block_size(out, opt, info_);
  for (uint16_t i : req->infos) {
    if (i == kInfoName) encode_info_string(out, opt, kInfoName, info_.name);
    if (i == kInfoDescription) encode_info_string(out, opt, kInfoDescription, info_.description);
  }
  encode_option_reply(out, opt, kRepAck);
  if (go) phase_ = Phase::transmission;
}

}  // namespace rs::nbd
