#pragma once
/// @file Exception hierarchy. Library code throws these and never calls exit(); app/ maps
/// them to exit codes (InputError -> 2, everything else -> 3).
#include <stdexcept>
#include <string>

namespace heptane {

/// Base of every heptane exception.
class Error : public std::runtime_error {
  public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// Bad input: a deck value, a data file, a command-line argument.
/// `key()` is the deck key path the problem belongs to (e.g. "wells[1].column"), or empty.
/// app/ turns the key into "file:line: " using the line map of the parsed deck, so modules
/// validate their own settings once and the deck still reports the line.
class InputError : public Error {
  public:
    explicit InputError(std::string detail) : InputError(std::string(), std::move(detail)) {}
    InputError(std::string key, std::string detail)
        : Error(key.empty() ? detail : key + ": " + detail),
          key_(std::move(key)),
          detail_(std::move(detail)) {}
    const std::string& key() const { return key_; }
    const std::string& detail() const { return detail_; }

  protected:
    /// For subclasses that format the whole message themselves (e.g. with file and line).
    InputError(std::string key, std::string detail, const std::string& what)
        : Error(what), key_(std::move(key)), detail_(std::move(detail)) {}

  private:
    std::string key_;
    std::string detail_;
};

/// A CUDA, cuBLAS or cuSPARSE call failed (expression, file, line and error string in what()).
class CudaError : public Error {
  public:
    using Error::Error;
};

/// The feature needs a backend this build does not contain (e.g. gpu/ built as the stub).
class NotCompiled : public Error {
  public:
    using Error::Error;
};

/// Valid input that this version does not handle (e.g. a size above an index limit).
class NotSupported : public Error {
  public:
    using Error::Error;
};

}  // namespace heptane
