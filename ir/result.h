/** \file Result<T>: a value or an error message, for errors that cross library interfaces as
 * values. */
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace uopfuzz {

/// Where in a text file something is (1-based); line 0 means "no location".
struct SourceLoc {
  int line = 0;
  int col = 0;
};

struct Error {
  std::string message;
  SourceLoc loc;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace uopfuzz
