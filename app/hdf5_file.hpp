#pragma once
/// @file A small RAII layer over the HDF5 C API: what heptane writes and reads (datasets of
/// doubles and integers with their shape, string and number attributes). HDF5's own error
/// printing is off; failures throw Error (writing) or InputError (reading).
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace heptane::app::h5 {

/// An open HDF5 identifier closed by its HDF5 close function.
class Id {
  public:
    using Closer = herr_t (*)(hid_t);
    Id() = default;
    Id(hid_t id, Closer close) : id_(id), close_(close) {}
    Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
    Id& operator=(Id&& o) noexcept;
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    ~Id();
    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    /// Gives up the identifier without closing it.
    hid_t release() {
        const hid_t id = id_;
        id_ = -1;
        return id;
    }

  private:
    hid_t id_ = -1;
    Closer close_ = nullptr;
};

/// A numeric dataset read back as doubles (integers are converted).
struct Dataset {
    std::vector<hsize_t> dims;
    std::vector<double> values;
};

class File {
  public:
    /// Creates (truncates) a file for writing.
    static File create(const std::string& path);
    /// Opens an existing file read-only; InputError if it is missing or not HDF5.
    static File open(const std::string& path);
    /// Opens a file this process wrote, for writing more into it (Error on failure).
    static File append(const std::string& path);

    /// Writes a dataset of doubles with the given shape (product of dims == data.size()),
    /// creating intermediate groups. `units` (if not empty) becomes an attribute.
    void write(const std::string& path, const std::vector<double>& data,
               const std::vector<hsize_t>& dims, const std::string& units = {});
    void write(const std::string& path, const std::vector<std::int64_t>& data,
               const std::vector<hsize_t>& dims);
    void write(const std::string& path, const std::vector<std::int32_t>& data,
               const std::vector<hsize_t>& dims);
    /// Creates a group (and its parents) if missing.
    void group(const std::string& path);
    /// Removes the link `path` (a group with everything below it, or a dataset) if it exists;
    /// its space is reused by what this handle writes next.
    void remove(const std::string& path);
    /// Closes the file, throwing Error where HDF5 cannot finish writing it (a full disk): the
    /// destructor closes silently, so a writer calls this before it trusts the file.
    void close();

    /// Attributes of an existing object ("/" for the root).
    void attr(const std::string& object, const std::string& name, const std::string& value);
    void attr(const std::string& object, const std::string& name, double value);
    void attr(const std::string& object, const std::string& name, long long value);

    bool exists(const std::string& path) const;
    /// Full paths of every dataset below `group` (recursively), sorted; empty if the group
    /// does not exist.
    std::vector<std::string> datasets(const std::string& group) const;
    Dataset read(const std::string& path) const;
    std::string attr_string(const std::string& object, const std::string& name) const;
    double attr_double(const std::string& object, const std::string& name) const;

    const std::string& path() const { return path_; }

  private:
    File(Id id, std::string path) : id_(std::move(id)), path_(std::move(path)) {}
    Id id_;
    std::string path_;
};

}  // namespace heptane::app::h5
