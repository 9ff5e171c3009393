/// @file cuBLAS, loaded at its first call (design decision 104). Linking libcublas costs every
/// process that links heptane_gpu about a third of a second at start-up, whether it calls
/// cuBLAS or not: libcublasLt, which it pulls in, runs large static initializers. Only the
/// library solvers (bicgstab_library.cu, qmr_library.cu: the cuSPARSE + cuBLAS baseline) call
/// it, so heptane does not link it: this file defines the cuBLAS entry points those solvers
/// call, and each forwards to the same function of libcublas, opened with dlopen at the first
/// call. Their callers are plain cuBLAS code (cublas_v2.h maps cublasDaxpy to cublasDaxpy_v2,
/// the name defined here).
#include <cublas_v2.h>
#include <dlfcn.h>

#include <string>

#include "core/base/errors.hpp"

#define HEPTANE_CUBLAS_STR2(x) #x
#define HEPTANE_CUBLAS_STR(x) HEPTANE_CUBLAS_STR2(x)

namespace {

/// libcublas of the toolkit heptane was built with: by its soname (LD_LIBRARY_PATH, the
/// executable's run path, the system's), else from the toolkit's library folder. RTLD_LOCAL:
/// its symbols stay out of the global scope.
void* cublas_library() {
    static void* const library = [] {
        const std::string soname = "libcublas.so." HEPTANE_CUBLAS_STR(CUBLAS_VER_MAJOR);
        void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) {
            const std::string first = dlerror();
            h = dlopen((std::string(HEPTANE_CUDA_LIBRARY_DIR) + "/" + soname).c_str(),
                       RTLD_NOW | RTLD_LOCAL);
            if (h == nullptr) {
                throw heptane::CudaError("cuBLAS: cannot load " + soname + " (" + first +
                                         "; nor from " HEPTANE_CUDA_LIBRARY_DIR ")");
            }
        }
        return h;
    }();
    return library;
}

/// libcublas's function `name`, of type F.
template <class F>
F cublas_function(const char* name) {
    void* f = dlsym(cublas_library(), name);
    if (f == nullptr) {
        throw heptane::CudaError(std::string("cuBLAS: libcublas has no function ") + name);
    }
    return reinterpret_cast<F>(f);
}

}  // namespace

// Each definition: look the function up once, then call it. `name` is the macro cublas_v2.h
// defines, so the string is the library's own symbol (cublasDaxpy -> "cublasDaxpy_v2").
#define HEPTANE_CUBLAS_CALL(name, ...)                                                \
    static const auto f = cublas_function<decltype(&name)>(HEPTANE_CUBLAS_STR(name)); \
    return f(__VA_ARGS__)

cublasStatus_t CUBLASWINAPI cublasCreate(cublasHandle_t* handle) {
    HEPTANE_CUBLAS_CALL(cublasCreate, handle);
}

cublasStatus_t CUBLASWINAPI cublasDestroy(cublasHandle_t handle) {
    HEPTANE_CUBLAS_CALL(cublasDestroy, handle);
}

cublasStatus_t CUBLASWINAPI cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
    HEPTANE_CUBLAS_CALL(cublasSetStream, handle, stream);
}

cublasStatus_t CUBLASWINAPI cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode) {
    HEPTANE_CUBLAS_CALL(cublasSetPointerMode, handle, mode);
}

const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
    HEPTANE_CUBLAS_CALL(cublasGetStatusString, status);
}

cublasStatus_t CUBLASWINAPI cublasDnrm2(cublasHandle_t handle, int n, const double* x, int incx,
                                        double* result) {
    HEPTANE_CUBLAS_CALL(cublasDnrm2, handle, n, x, incx, result);
}

cublasStatus_t CUBLASWINAPI cublasDdot(cublasHandle_t handle, int n, const double* x, int incx,
                                       const double* y, int incy, double* result) {
    HEPTANE_CUBLAS_CALL(cublasDdot, handle, n, x, incx, y, incy, result);
}

cublasStatus_t CUBLASWINAPI cublasDscal(cublasHandle_t handle, int n, const double* alpha,
                                        double* x, int incx) {
    HEPTANE_CUBLAS_CALL(cublasDscal, handle, n, alpha, x, incx);
}

cublasStatus_t CUBLASWINAPI cublasDaxpy(cublasHandle_t handle, int n, const double* alpha,
                                        const double* x, int incx, double* y, int incy) {
    HEPTANE_CUBLAS_CALL(cublasDaxpy, handle, n, alpha, x, incx, y, incy);
}

cublasStatus_t CUBLASWINAPI cublasDcopy(cublasHandle_t handle, int n, const double* x, int incx,
                                        double* y, int incy) {
    HEPTANE_CUBLAS_CALL(cublasDcopy, handle, n, x, incx, y, incy);
}
