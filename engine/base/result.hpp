// The engine's one error model: an operation returns Result<T> (or Status
// when there is no value), holding either the value or an Error with a code
// and a message that names the member, file or option and the reason.
//
// No exception crosses a thread boundary or leaves the engine's public API;
// std::bad_alloc aside, code that calls a throwing library catches at the
// call and converts. The CLI maps an Error to its exit status with
// exit_status(): 2 for bad usage (the user asked for something invalid),
// 1 for everything that went wrong at run time.
#pragma once
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace rs {

enum class Errc {
  invalid_argument,  // the request itself is wrong (out of range, unknown name): exit 2
  not_found,         // a file, member, tunable or profile that does not exist
  busy,              // in use by another process, array or mount
  refused,           // a safety check said no (signature, mounted, last copy...)
  io_error,          // a read/write/flush failed
  corrupt,           // on-disk data that does not validate
  unsupported,       // valid but not offered here (level, engine, kernel feature)
  cancelled,         // stopped by cancel(); partial work recorded
  out_of_memory,     // memory could not be had (an allocation, mmap, posix_memalign failed)
  internal,          // a broken invariant: a bug
};

const char* errc_name(Errc c);

// What a refusal lets the user accept on purpose. The message names only
// what is there; each front end says how to go ahead (the CLI a flag, the
// GUI a confirmation), so the engine's text never names a front end's flag.
enum class Consent {
  none,                  // no way past it
  overwrite,             // destroy what the target holds (the CLI's --force)
  start_degraded,        // start with members missing (mdadm's --run)
  start_dirty_degraded,  // start degraded before the resync finished (md's start_dirty_degraded)
};

struct Error {
  Errc code = Errc::internal;
  std::string message;
  Consent consent = Consent::none;

  bool is_usage() const { return code == Errc::invalid_argument; }
};

inline Error make_error(Errc code, std::string message) {
  return Error{code, std::move(message)};
}

// A refusal the user may accept on purpose, as `consent` says.
inline Error consentable_refusal(std::string message, Consent consent) {
  return Error{Errc::refused, std::move(message), consent};
}

// A refusal to destroy what a target holds, which `force` would override.
inline Error overridable_refusal(std::string message) {
  return consentable_refusal(std::move(message), Consent::overwrite);
}

// CLI exit status for an error: 2 usage, 1 run time.
inline int exit_status(const Error& e) {
  return e.is_usage() ? 2 : 1;
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit, like std::expected
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  Error&& take_error() {
    assert(!ok());
    return std::get<1>(std::move(v_));
  }

 private:
  std::variant<T, Error> v_;
};

// Success or an Error, for operations without a value.
class [[nodiscard]] Status {
 public:
  Status() = default;                                            // success
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

inline const char* errc_name(Errc c) {
  switch (c) {
    case Errc::invalid_argument:
      return "invalid argument";
    case Errc::not_found:
      return "not found";
    case Errc::busy:
      return "busy";
    case Errc::refused:
      return "refused";
    case Errc::io_error:
      return "I/O error";
    case Errc::corrupt:
      return "corrupt";
    case Errc::unsupported:
      return "unsupported";
    case Errc::cancelled:
      return "cancelled";
    case Errc::out_of_memory:
      return "out of memory";
    case Errc::internal:
      return "internal error";
  }
  return "?";
}

}  // namespace rs
