// fio's multi-file jobs: which files a job instance uses and how large each
// is (fio's init.c add_job/make_filename and filesetup.c setup_files).
//
//  - filename=a:b:c lists the files (shared by every clone of the job);
//    without filename=, each clone gets nrfiles files of its own, named by
//    filename_format (default "$jobname.$jobnum.$filenum", $jobnum being
//    the clone number 0..numjobs-1 and $filenum 0..nrfiles-1).
//  - directory= is put in front of every relative name.
//  - Each file's region is filesize= bytes, else size / number of files,
//    with the first files one block larger when that does not divide
//    (fio's nr_fs_extra); without size= or filesize= an existing file's
//    own size.
// A job is a file-set job when it names files this way (nrfiles, directory,
// filename_format, a:b); a single filename= keeps the one-target path.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "workload/job_options.hpp"

namespace rs::workload {

struct JobFile {
  std::string path;
  uint64_t size = 0;  // bytes of the job's region in this file: offset + size is what it needs
};

bool is_file_set_job(const JobOptions& job);
// filename=a:b:c as fio splits it (at ':' unless escaped as '\:').
std::vector<std::string> split_file_names(const std::string& list);

// fio's make_filename: $jobname, $jobnum, $filenum (any case) replaced; an
// empty format is fio's default "$jobname.$jobnum.$filenum". $clientuid
// (fio's client/server mode) is left as written.
std::string format_file_name(const std::string& format, const std::string& jobname, unsigned jobnum,
                             unsigned filenum);

// The files of clone `clone` of `job`, with each one's region size. Fails
// (empty, *error set) when no size can be found (no size=, no filesize=,
// a file that does not exist) or the sizes leave a file no block.
Result<std::vector<JobFile>> job_files(const JobOptions& job, unsigned clone);

}  // namespace rs::workload
