#include "fio/log_compression.hpp"

#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "base/read_file.hpp"

namespace rs::fio {

Status store_log_compressed(const std::string& path, uint64_t chunk_bytes) {
  auto text = read_file(path);
  if (!text) return text.error();
  const std::string fz = path + ".fz";
  std::ofstream out(fz, std::ios::binary | std::ios::trunc);
  if (!out) return make_error(Errc::io_error, fz + ": cannot create it");
  const uint64_t step = chunk_bytes ? chunk_bytes : std::max<uint64_t>(text->size(), 1);
  std::vector<Bytef> buf;
  for (uint64_t at = 0; at < text->size(); at += step) {
    const uLong n = uLong(std::min<uint64_t>(step, text->size() - at));
    uLongf len = compressBound(n);
    buf.resize(len);
    if (compress2(buf.data(), &len, reinterpret_cast<const Bytef*>(text->data() + at), n,
                  Z_DEFAULT_COMPRESSION) != Z_OK)
      return make_error(Errc::internal, fz + ": zlib could not compress the log");
    out.write(reinterpret_cast<const char*>(buf.data()), std::streamsize(len));
  }
  if (!out.flush()) {
    std::remove(fz.c_str());
    return make_error(Errc::io_error, fz + ": writing it failed");
  }
  out.close();
  std::remove(path.c_str());
  return {};
}

Result<std::string> inflate_log(const std::string& path) {
  auto data = read_file(path);
  if (!data) return data.error();
  std::string text;
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return make_error(Errc::internal, "zlib could not start");
  z.next_in = reinterpret_cast<Bytef*>(data->data());
  z.avail_in = uInt(data->size());
  std::vector<char> out(1 << 16);
  int rc = Z_OK;
  bool ended = true;  // the last stream was whole
  while (z.avail_in > 0) {
    ended = false;  // one zlib stream per chunk, one after another
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    rc = inflate(&z, Z_NO_FLUSH);
    text.append(out.data(), out.size() - z.avail_out);
    if (rc == Z_STREAM_END)
      rc = inflateReset(&z), ended = true;
    else if (rc != Z_OK)
      break;
  }
  inflateEnd(&z);
  if (rc != Z_OK || !ended)
    return make_error(Errc::invalid_argument, path + ": not a log RaidScope compressed (zlib chunks)");
  return text;
}

}  // namespace rs::fio
