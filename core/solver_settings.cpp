#include "core/solver_settings.hpp"

namespace heptane {

const char* to_string(Method m) {
    switch (m) {
        case Method::bicgstab:
            return "bicgstab";
        case Method::qmr:
            return "qmr";
        case Method::block_jacobi:
            return "block_jacobi";
        case Method::block_gs:
            return "block_gs";
    }
    return "?";
}

const char* to_string(PreconditionerKind p) {
    switch (p) {
        case PreconditionerKind::none:
            return "none";
        case PreconditionerKind::point_block_jacobi:
            return "point_block_jacobi";
        case PreconditionerKind::line_jacobi:
            return "line_jacobi";
        case PreconditionerKind::block_jacobi:
            return "block_jacobi";
    }
    return "?";
}

}  // namespace heptane
