#include "app/hdf5_file.hpp"

#include <algorithm>
#include <numeric>

#include "core/base/errors.hpp"

namespace heptane::app::h5 {
namespace {

/// HDF5 prints an error stack on every failure by default; heptane reports its own.
void silence_hdf5() {
    static const bool silenced = [] {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        return true;
    }();
    (void)silenced;
}

[[noreturn]] void write_failed(const std::string& file, const std::string& what) {
    throw Error("HDF5: cannot " + what + " in '" + file + "'");
}

[[noreturn]] void read_failed(const std::string& file, const std::string& what) {
    throw InputError("", file + ": cannot " + what);
}

hsize_t count(const std::vector<hsize_t>& dims) {
    return std::accumulate(dims.begin(), dims.end(), hsize_t{1}, std::multiplies<hsize_t>());
}

Id link_creation_plist() {
    Id plist(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(plist.get(), 1);
    return plist;
}

void write_raw(hid_t file, const std::string& file_name, const std::string& path, hid_t type,
               const void* data, std::size_t size, const std::vector<hsize_t>& dims) {
    if (count(dims) != size) write_failed(file_name, "write " + path + " (shape mismatch)");
    Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    const Id lcpl = link_creation_plist();
    Id set(H5Dcreate2(file, path.c_str(), type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
           H5Dclose);
    if (!set.valid()) write_failed(file_name, "create dataset " + path);
    if (size > 0 && H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        write_failed(file_name, "write dataset " + path);
    }
}

/// The 1.8 format stores large attributes (the deck text) densely, above 64 KiB.
Id file_access_plist() {
    Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    return fapl;
}

Id open_object(hid_t file, const std::string& file_name, const std::string& object) {
    Id obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
    if (!obj.valid()) write_failed(file_name, "open " + object);
    return obj;
}

void write_attr(hid_t file, const std::string& file_name, const std::string& object,
                const std::string& name, hid_t type, const void* value) {
    const Id obj = open_object(file, file_name, object);
    if (H5Aexists(obj.get(), name.c_str()) > 0) H5Adelete(obj.get(), name.c_str());
    Id space(H5Screate(H5S_SCALAR), H5Sclose);
    Id a(H5Acreate2(obj.get(), name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
         H5Aclose);
    if (!a.valid() || H5Awrite(a.get(), type, value) < 0) {
        write_failed(file_name, "write attribute " + object + "@" + name);
    }
}

#if H5_VERSION_GE(1, 12, 0)
using ObjectInfo = H5O_info2_t;  // H5Ovisit3's callback type (HDF5 1.12+)
#else
using ObjectInfo = H5O_info_t;  // H5Ovisit's callback type (HDF5 1.10, Debian 12)
#endif

herr_t collect(hid_t, const char* name, const ObjectInfo* info, void* out) {
    if (info->type == H5O_TYPE_DATASET && std::string(name) != ".") {
        static_cast<std::vector<std::string>*>(out)->push_back(name);
    }
    return 0;
}

}  // namespace

Id& Id::operator=(Id&& o) noexcept {
    if (this != &o) {
        if (id_ >= 0 && close_ != nullptr) close_(id_);
        id_ = o.id_;
        close_ = o.close_;
        o.id_ = -1;
    }
    return *this;
}

Id::~Id() {
    if (id_ >= 0 && close_ != nullptr) close_(id_);
}

File File::create(const std::string& path) {
    silence_hdf5();
    const Id fapl = file_access_plist();
    Id id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
    if (!id.valid()) write_failed(path, "create the file");
    return File(std::move(id), path);
}

File File::append(const std::string& path) {
    silence_hdf5();
    const Id fapl = file_access_plist();
    Id id(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose);
    if (!id.valid()) write_failed(path, "open the file for writing");
    return File(std::move(id), path);
}

File File::open(const std::string& path) {
    silence_hdf5();
#if H5_VERSION_GE(1, 12, 0)
    const htri_t is_hdf5 = H5Fis_accessible(path.c_str(), H5P_DEFAULT);
#else
    const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
#endif
    if (is_hdf5 <= 0) {
        read_failed(path, "read it as an HDF5 file (missing, unreadable or not HDF5)");
    }
    Id id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!id.valid()) read_failed(path, "open it");
    return File(std::move(id), path);
}

void File::write(const std::string& path, const std::vector<double>& data,
                 const std::vector<hsize_t>& dims, const std::string& units) {
    write_raw(id_.get(), path_, path, H5T_NATIVE_DOUBLE, data.data(), data.size(), dims);
    if (!units.empty()) attr(path, "units", units);
}

void File::write(const std::string& path, const std::vector<std::int64_t>& data,
                 const std::vector<hsize_t>& dims) {
    write_raw(id_.get(), path_, path, H5T_NATIVE_INT64, data.data(), data.size(), dims);
}

void File::write(const std::string& path, const std::vector<std::int32_t>& data,
                 const std::vector<hsize_t>& dims) {
    write_raw(id_.get(), path_, path, H5T_NATIVE_INT32, data.data(), data.size(), dims);
}

void File::group(const std::string& path) {
    if (exists(path)) return;
    const Id lcpl = link_creation_plist();
    Id g(H5Gcreate2(id_.get(), path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!g.valid()) write_failed(path_, "create group " + path);
}

void File::remove(const std::string& path) {
    if (!exists(path)) return;
    if (H5Ldelete(id_.get(), path.c_str(), H5P_DEFAULT) < 0) write_failed(path_, "remove " + path);
}

void File::close() {
    if (!id_.valid()) return;
    if (H5Fclose(id_.release()) < 0) write_failed(path_, "finish writing (close) the file");
}

void File::attr(const std::string& object, const std::string& name, const std::string& value) {
    Id type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1));
    H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
    write_attr(id_.get(), path_, object, name, type.get(), value.c_str());
}

void File::attr(const std::string& object, const std::string& name, double value) {
    write_attr(id_.get(), path_, object, name, H5T_NATIVE_DOUBLE, &value);
}

void File::attr(const std::string& object, const std::string& name, long long value) {
    write_attr(id_.get(), path_, object, name, H5T_NATIVE_LLONG, &value);
}

bool File::exists(const std::string& path) const {
    if (path == "/") return true;
    // Every parent link must exist before the last one can be asked for.
    std::size_t pos = 0;
    while ((pos = path.find('/', pos + 1)) != std::string::npos) {
        if (H5Lexists(id_.get(), path.substr(0, pos).c_str(), H5P_DEFAULT) <= 0) return false;
    }
    return H5Lexists(id_.get(), path.c_str(), H5P_DEFAULT) > 0;
}

std::vector<std::string> File::datasets(const std::string& group) const {
    std::vector<std::string> names;
    if (!exists(group)) return names;
    Id g(H5Oopen(id_.get(), group.c_str(), H5P_DEFAULT), H5Oclose);
    if (!g.valid()) return names;
#if H5_VERSION_GE(1, 12, 0)
    H5Ovisit3(g.get(), H5_INDEX_NAME, H5_ITER_INC, collect, &names, H5O_INFO_BASIC);
#else
    H5Ovisit(g.get(), H5_INDEX_NAME, H5_ITER_INC, collect, &names);
#endif
    const std::string prefix = group == "/" ? "/" : group + "/";
    for (auto& n : names) n = prefix + n;
    std::sort(names.begin(), names.end());
    return names;
}

Dataset File::read(const std::string& path) const {
    Id set(H5Dopen2(id_.get(), path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) read_failed(path_, "open dataset " + path);
    Id type(H5Dget_type(set.get()), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) read_failed(path_, path + " is not numeric");
    Id space(H5Dget_space(set.get()), H5Sclose);
    Dataset out;
    out.dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())));
    H5Sget_simple_extent_dims(space.get(), out.dims.data(), nullptr);
    out.values.resize(count(out.dims));
    if (!out.values.empty() && H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                       out.values.data()) < 0) {
        read_failed(path_, "read dataset " + path);
    }
    return out;
}

std::string File::attr_string(const std::string& object, const std::string& name) const {
    Id a(H5Aopen_by_name(id_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
         H5Aclose);
    if (!a.valid()) read_failed(path_, "read attribute " + object + "@" + name);
    Id type(H5Aget_type(a.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0) {
        read_failed(path_, "read attribute " + object + "@" + name + " as a fixed-length string");
    }
    std::string value(H5Tget_size(type.get()), '\0');
    Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), value.size());
    H5Tset_strpad(mem.get(), H5T_STR_NULLPAD);
    if (H5Aread(a.get(), mem.get(), value.data()) < 0) {
        read_failed(path_, "read attribute " + object + "@" + name);
    }
    value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
    return value;
}

double File::attr_double(const std::string& object, const std::string& name) const {
    Id a(H5Aopen_by_name(id_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
         H5Aclose);
    double value = 0.0;
    if (!a.valid() || H5Aread(a.get(), H5T_NATIVE_DOUBLE, &value) < 0) {
        read_failed(path_, "read attribute " + object + "@" + name);
    }
    return value;
}

}  // namespace heptane::app::h5
