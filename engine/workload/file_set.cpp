#include "workload/file_set.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>

namespace rs::workload {

// fio splits filename= at ':' unless escaped as '\:'.
std::vector<std::string> split_file_names(const std::string& list) {
  std::vector<std::string> names(1);
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '\\' && i + 1 < list.size() && list[i + 1] == ':') {
      names.back() += ':';
      ++i;
    } else if (list[i] == ':') {
      names.emplace_back();
    } else {
      names.back() += list[i];
    }
  }
  names.erase(std::remove(names.begin(), names.end(), std::string()), names.end());
  return names;
}

namespace {

bool has_unescaped_colon(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == ':' && (i == 0 || s[i - 1] != '\\')) return true;
  return false;
}

// Replaces every occurrence of `key` (compared without case) with `value`.
void replace_keyword(std::string& s, const std::string& key, const std::string& value) {
  for (size_t at = 0; at + key.size() <= s.size();) {
    bool hit = true;
    for (size_t k = 0; k < key.size() && hit; ++k)
      hit = std::tolower(static_cast<unsigned char>(s[at + k])) == key[k];
    if (!hit) {
      ++at;
      continue;
    }
    s.replace(at, key.size(), value);
    at += value.size();
  }
}

}  // namespace

bool is_file_set_job(const JobOptions& job) {
  return job.nrfiles > 1 || !job.directory.empty() || !job.filename_format.empty() ||
         has_unescaped_colon(job.filename) || job.create_on_open;
}

std::string format_file_name(const std::string& format, const std::string& jobname, unsigned jobnum,
                             unsigned filenum) {
  std::string s = format.empty() ? "$jobname.$jobnum.$filenum" : format;
  replace_keyword(s, "$jobname", jobname);
  replace_keyword(s, "$jobnum", std::to_string(jobnum));
  replace_keyword(s, "$filenum", std::to_string(filenum));
  return s;
}

Result<std::vector<JobFile>> job_files(const JobOptions& job, unsigned clone) {
  std::vector<std::string> names;
  if (!job.filename.empty())
    names = split_file_names(job.filename);
  else
    for (unsigned i = 0; i < job.nrfiles; ++i)
      names.push_back(format_file_name(job.filename_format, job.name, clone, i));
  if (names.empty()) return make_error(Errc::invalid_argument, "filename=" + job.filename + " names no file");
  std::vector<JobFile> files;
  for (auto& n : names)
    files.push_back({job.directory.empty() || n.starts_with('/') ? n : job.directory + "/" + n, 0});
  // fio's setup_files: filesize= per file; else size / files, the first
  // files one block larger while the remainder lasts; else the file's own size.
  const uint64_t n = files.size();
  const uint32_t bs = std::max(does_read(job.rw) ? job.bs[kDdirRead] : 0u,
                               does_write(job.rw) || does_trim(job.rw) ? job.bs[kDdirWrite] : 0u);
  const uint64_t total = job.size_from_filesize ? 0 : job.size;
  uint64_t each = 0, extra = 0;
  if (!job.filesize && total) {
    each = total / n;
    extra = (total - each * n) / std::max<uint32_t>(bs, 1);
  }
  for (auto& f : files) {
    if (job.filesize) {
      f.size = job.filesize;
    } else if (total) {
      f.size = each;
      if (extra) f.size += bs, --extra;
    } else {
      struct stat st {};
      if (::stat(f.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_size) <= job.offset)
        return make_error(Errc::invalid_argument,
                          f.path + ": needs size= or filesize= (the file does not exist or is empty)");
      f.size = uint64_t(st.st_size) - job.offset;
    }
    if (f.size < bs)
      return make_error(Errc::invalid_argument,
                        f.path + ": its share of the job's size (" + std::to_string(f.size) +
                            " bytes) is less than one block of " + std::to_string(bs));
  }
  // fio: size= smaller than the files' total bounds the job's I/O (the
  // driver moves `size` bytes over the files); filesize x files otherwise.
  return files;
}

}  // namespace rs::workload
