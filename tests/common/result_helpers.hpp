// Small adapters from the engine's Result/Status to what tests compare.
//  error_text(r): the error message, "" when `r` succeeded (Result::error()
//    asserts that it failed);
//  or_empty(r, &why): the value, or T{} with the message in *why;
//  must(r): the value, or an exception Catch2 reports with the message
//    (tests only: the engine never throws).
#pragma once
#include <stdexcept>
#include <string>
#include <utility>

#include "base/result.hpp"

namespace rs::test {

template <class R>
std::string error_text(const R& r) {
  return r.ok() ? std::string() : r.error().message;
}

template <class T>
T or_empty(Result<T>&& r, std::string* why = nullptr) {
  if (r) return std::move(r).value();
  if (why) *why = r.error().message;
  return T{};
}

template <class T>
T must(Result<T>&& r) {
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(r).value();
}

}  // namespace rs::test
