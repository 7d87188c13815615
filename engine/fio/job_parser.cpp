#include "fio/job_parser.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>

#include "base/printable.hpp"
#include "fio/option_parsers.hpp"
#include "fio/option_table.hpp"
#include "fio/size_parse.hpp"
#include "workload/job_checks.hpp"

namespace rs::fio {

using namespace rs::workload;

namespace {

using LineMap = std::map<std::string, unsigned, std::less<>>;  // canonical option -> line last set

// fio's --debug=parse lines for an option just applied: handle_option's,
// and steadystate's threshold.
void trace_option(std::vector<std::string>& trace, std::string_view canonical,
                  std::optional<std::string_view> value, const JobOptions& job) {
  trace.push_back("handle_option=" + std::string(canonical) +
                  ", ptr=" + (value ? std::string(*value) : std::string("(null)")));
  if (canonical == "steadystate") trace.push_back(opt::steadystate_trace(job));
}

bool is_blank(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c));
}

std::string_view trim_front(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  return s;
}
std::string_view trim_back(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}
std::string_view trim(std::string_view s) {
  return trim_back(trim_front(s));
}

std::string located(std::string_view origin, unsigned line, std::string_view msg) {
  return std::string(origin) + ":" + std::to_string(line) + ": " + std::string(msg);
}

unsigned line_of(const LineMap& lines, std::string_view option) {
  auto it = lines.find(option);
  return it == lines.end() ? 0 : it->second;
}

// fio's substitutions in a job file line (options.c fio_option_dup_subs and
// fio_keyword_replace): ${VAR} becomes the environment variable's value
// (empty when unset: its name goes to *unset), $pagesize, $mb_memory and
// $ncpus the machine's figures. fio's arithmetic on them is not done.
std::string expand_variables(std::string_view line, std::vector<std::string>* unset) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '$' && i + 1 < line.size() && line[i + 1] == '{') {
      const size_t close = line.find('}', i + 2);
      if (close != std::string_view::npos && close > i + 2) {
        const std::string name(line.substr(i + 2, close - i - 2));
        if (const char* v = std::getenv(name.c_str()))
          out += v;
        else
          unset->push_back(name);
        i = close + 1;
        continue;
      }
    }
    if (line[i] == '$') {
      struct Keyword {
        std::string_view word;
        long value;
      };
      const Keyword keywords[] = {
          {"$pagesize", ::sysconf(_SC_PAGESIZE)},
          {"$mb_memory", long(uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE)) >> 20)},
          {"$ncpus", ::sysconf(_SC_NPROCESSORS_ONLN)},
      };
      bool replaced = false;
      for (const auto& k : keywords)
        if (line.substr(i).starts_with(k.word)) {
          out += std::to_string(k.value);
          i += k.word.size();
          replaced = true;
          break;
        }
      if (replaced) continue;
    }
    out += line[i++];
  }
  return out;
}

struct Section {
  bool global = false;
  unsigned header_line = 0;
  JobOptions job;  // unused for a global section
  LineMap lines;   // for jobs: inherited global lines, then the section's own
};

class FileParser {
 public:
  FileParser(std::string_view origin, const JobOptions& base) : origin_(origin) {
    result_.global = base;
    result_.global.inherited.clear();
  }

  Result<ParsedJobs> run(std::string_view text) {
    if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
      const auto line = unsigned(std::count(text.begin(), text.begin() + long(nul), '\n') + 1);
      error_ = located(origin_, line, "binary data (a NUL byte): not a job file");
      return fail();
    }
    unsigned lineno = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
      pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
      ++lineno;
      if (!handle_line(line, lineno)) return fail();
    }
    if (!finish_section()) return fail();
    if (result_.jobs.empty()) {
      error_ = std::string(origin_) + ": no job section found (only [global] or nothing)";
      return fail();
    }
    return std::move(result_);
  }

 private:
  Error fail() const { return make_error(Errc::invalid_argument, error_); }

  bool error(unsigned line, std::string_view msg) {
    // Messages quote the file's text (printable, cut); this bounds any
    // that would still carry a whole long line.
    error_ = located(origin_, line, printable(msg, 1000));
    return false;
  }

  bool handle_line(std::string_view raw, unsigned lineno) {
    std::vector<std::string> unset;
    const std::string expanded = expand_variables(raw, &unset);
    std::string_view line = trim_front(expanded);
    // fio: a line whose first non-blank is ';' or '#' is a comment; elsewhere
    // the first ';' or '#' starts one.
    if (line.empty() || line.front() == ';' || line.front() == '#') return true;
    line = trim_back(line.substr(0, line.find_first_of(";#")));

    if (line.front() == '[') return open_section(line, lineno);
    if (!section_) {
      return error(lineno, "option " + quoted_printable(line) + " outside of any [section]");
    }
    if (!unset.empty() && line.back() == '=')
      return error(lineno, quoted_printable(trim(raw)) + ": ${" + printable(unset.front()) +
                               "} is not set in the environment (fio would use an empty value)");
    return handle_option(line, lineno);
  }

  bool open_section(std::string_view line, unsigned lineno) {
    if (!finish_section()) return false;
    if (line.back() != ']') return error(lineno, "unterminated section header " + quoted_printable(line));
    std::string_view name = line.substr(1, line.size() - 2);
    if (name.empty()) return error(lineno, "empty section name '[]'");
    if (name.find_first_of("[]") != std::string_view::npos)
      return error(lineno, "bad section header " + quoted_printable(line));

    Section s;
    s.header_line = lineno;
    // fio compares only the first six characters (init.c: strncmp(name, "global", 6)).
    s.global = name.starts_with("global");
    if (s.global && name != "global")
      result_.warnings.push_back(
          located(origin_, lineno, "section [" + printable(name) + "] is a global section, as in fio"));
    if (!s.global) {
      s.job = result_.global;
      s.job.inherited = std::move(s.job.given);
      s.job.given.clear();
      s.job.name = std::string(name);
      s.job.origin = std::string(origin_);
      s.job.line = lineno;
      s.lines = global_lines_;
    }
    section_ = std::move(s);
    return true;
  }

  bool handle_option(std::string_view line, unsigned lineno) {
    if (line.starts_with("include") && (line.size() == 7 || is_blank(line[7])))
      return error(lineno, "include is not supported");
    size_t eq = line.find('=');
    std::string_view key = trim(line.substr(0, eq));
    std::optional<std::string_view> value;
    if (eq != std::string_view::npos) {
      std::string_view after = line.substr(eq + 1);
      value = trim(after);
      if (value->empty()) return error(lineno, "option " + quoted_printable(key) + " has an empty value");
      if (after.size() != trim_front(after).size())
        result_.warnings.push_back(located(origin_, lineno,
                                           "fio 3.33 keeps the blank after '=' and misreads " +
                                               quoted_printable(line) + "; write " + printable(key) + "=" +
                                               printable(*value) + " for fio compatibility"));
    }
    if (key.empty()) return error(lineno, "option without a name: " + quoted_printable(line));

    JobOptions& target = section_->global ? result_.global : section_->job;
    if (Status st = apply_option(target, key, value); !st) return error(lineno, st.error().message);
    std::string canonical(canonical_option_name(key));
    trace_option(result_.parse_trace, canonical, value, target);
    target.given.emplace_back(canonical, value ? std::string(*value) : std::string{});
    (section_->global ? global_lines_ : section_->lines)[canonical] = lineno;
    return true;
  }

  bool finish_section() {
    if (!section_) return true;
    Section s = std::move(*section_);
    section_.reset();
    if (s.global) return true;
    if (s.job.size > 0) {
      if (std::string err = check_bs_fits(s.job, s.job.size); !err.empty()) {
        unsigned line = std::max(line_of(s.lines, "bs"), line_of(s.lines, "size"));
        return error(line ? line : s.header_line, "job " + quoted_printable(s.job.name) + ": " + err);
      }
    }
    result_.jobs.push_back(std::move(s.job));
    return true;
  }

  std::string_view origin_;
  ParsedJobs result_;
  LineMap global_lines_;
  std::optional<Section> section_;
  std::string error_;
};

}  // namespace

Result<ParsedJobs> parse_job_file(std::string_view text, std::string_view origin) {
  return parse_job_file(text, origin, JobOptions{});
}

Result<ParsedJobs> parse_job_file(std::string_view text, std::string_view origin, const JobOptions& base) {
  return FileParser(origin, base).run(text);
}

Result<ParsedCliJobs> parse_cli_job(const std::vector<std::string>& args) {
  ParsedCliJobs r;
  r.global.origin = "command line";
  std::optional<JobOptions> job;

  auto fail = [](std::string_view arg, std::string_view msg) {
    return make_error(Errc::invalid_argument,
                      arg.empty() ? "command line: " + std::string(msg)
                                  : "command line: " + quoted_printable(arg) + ": " + std::string(msg));
  };
  auto finish_job = [&]() -> std::string {
    if (!job) return {};
    std::string err;
    if (job->size > 0) err = check_bs_fits(*job, job->size);
    if (!err.empty()) err = job_label(*job) + ": " + err;
    r.jobs.push_back(std::move(*job));
    job.reset();
    return err;
  };

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("--")) {
      if (arg.size() > 1 && arg.front() == '-') return fail(arg, "short options are not supported");
      r.job_files.push_back(arg);
      continue;
    }
    std::string_view body = std::string_view(arg).substr(2);
    size_t eq = body.find('=');
    std::string_view key = body.substr(0, eq);
    std::optional<std::string> value;
    if (eq != std::string_view::npos) value = std::string(body.substr(eq + 1));
    std::string shown = arg;
    auto take_next_value = [&]() -> bool {
      if (value) return true;
      if (i + 1 >= args.size()) return false;
      value = args[++i];
      shown += " " + *value;
      return true;
    };

    if (auto flag = take_run_flag(key, value, take_next_value, r.flags)) {
      if (!*flag) return fail(shown, flag->error().message);
      continue;
    }
    if (key == "section") {  // fio: run only these sections of the job files (repeatable)
      if (!take_next_value() || value->empty()) return fail(shown, "requires a section name");
      r.sections.push_back(*value);
      continue;
    }

    std::string_view canonical = canonical_option_name(key);
    if (canonical.empty()) return fail(shown, apply_option(r.global, key, std::nullopt).error().message);
    if (!value && !option_value_optional(canonical) && !take_next_value())
      return fail(shown, "option " + quoted_printable(key) + " requires a value");
    if (value && value->empty())
      return fail(shown, "option " + quoted_printable(key) + " has an empty value");

    if (canonical == "name") {
      if (std::string err = finish_job(); !err.empty()) return fail(shown, err);
      job = r.global;
      job->inherited = std::move(job->given);
      job->given.clear();
      job->origin = "command line";
      job->line = 0;
    }
    JobOptions& target = job ? *job : r.global;
    std::optional<std::string_view> v;
    if (value) v = *value;
    if (Status st = apply_option(target, key, v); !st) return fail(shown, st.error().message);
    trace_option(r.parse_trace, canonical, v, target);
    target.given.emplace_back(std::string(canonical), value.value_or(std::string{}));
  }
  if (std::string err = finish_job(); !err.empty()) return fail("--name=" + r.jobs.back().name, err);
  if (r.jobs.empty() && r.job_files.empty()) return fail("", "no job given (--name=NAME or a job file)");
  return r;
}

}  // namespace rs::fio
