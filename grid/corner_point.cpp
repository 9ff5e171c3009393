#include "grid/corner_point.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>

#include "core/base/errors.hpp"

namespace heptane::grid {
namespace {

using Point = std::array<double, 3>;

Point minus(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Point cross(const Point& a, const Point& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

std::string ijk_text(int i, int j, int k) {
    return "(i, j, k) = (" + std::to_string(i) + ", " + std::to_string(j) + ", " +
           std::to_string(k) + ")";
}

/// The bulk volume of the trilinear hexahedron through corners p (c = ci + 2 cj + 4 ck): the
/// integral of its Jacobian's determinant over the unit cube by 2 x 2 x 2 Gauss points,
/// exact for a determinant of degree 2 in each variable.
double hexahedron_volume(const std::array<Point, 8>& p) {
    const double g[2] = {0.5 - 0.5 / std::sqrt(3.0), 0.5 + 0.5 / std::sqrt(3.0)};
    double sum = 0.0;
    for (double u : g) {
        for (double v : g) {
            for (double w : g) {
                // dX/du, dX/dv, dX/dw of X = sum of the corners' trilinear weights.
                Point du{0, 0, 0}, dv{0, 0, 0}, dw{0, 0, 0};
                for (int c = 0; c < 8; ++c) {
                    const int a = c & 1, b = (c >> 1) & 1, e = (c >> 2) & 1;
                    const double fu = a ? u : 1.0 - u, fv = b ? v : 1.0 - v, fw = e ? w : 1.0 - w;
                    const double su = a ? 1.0 : -1.0, sv = b ? 1.0 : -1.0, sw = e ? 1.0 : -1.0;
                    for (int x = 0; x < 3; ++x) {
                        du[x] += su * fv * fw * p[c][x];
                        dv[x] += fu * sv * fw * p[c][x];
                        dw[x] += fu * fv * sw * p[c][x];
                    }
                }
                sum += dot(du, cross(dv, dw)) / 8.0;
            }
        }
    }
    return std::abs(sum);
}

}  // namespace

CellGeometry corner_point_cells(const CornerPointInput& in) {
    const int nx = in.nx, ny = in.ny, nz = in.nz;
    const std::vector<double>& coord = *in.coord;
    const std::vector<double>& zcorn = *in.zcorn;
    const auto finite = [&](const std::vector<double>& v, const std::string& where,
                            const char* name) {
        for (std::size_t n = 0; n < v.size(); ++n) {
            if (!std::isfinite(v[n] * in.unit)) {
                throw InputError(
                    in.key, where + name + ": value " + std::to_string(n + 1) + " is not finite");
            }
        }
    };
    finite(coord, in.coord_where, "COORD");
    finite(zcorn, in.zcorn_where, "ZCORN");
    // Pillar (pi, pj): its top and bottom points, metres.
    const auto pillar = [&](int pi, int pj, int end) {
        const std::size_t at = 6 * (static_cast<std::size_t>(pj) * (nx + 1) + pi) + 3 * end;
        return Point{coord[at] * in.unit, coord[at + 1] * in.unit, coord[at + 2] * in.unit};
    };
    for (int pj = 0; pj <= ny; ++pj) {
        for (int pi = 0; pi <= nx; ++pi) {
            if (pillar(pi, pj, 0)[2] == pillar(pi, pj, 1)[2]) {
                throw InputError(in.key, in.coord_where + "COORD: pillar (i, j) = (" +
                                             std::to_string(pi) + ", " + std::to_string(pj) +
                                             ") has the same depth at its top and its bottom");
            }
        }
    }
    const auto z_of = [&](int i, int j, int k, int c) {  // corner c's depth, metres
        const std::size_t at =
            (static_cast<std::size_t>(2 * k + (c >> 2)) * (2 * ny) + 2 * j + ((c >> 1) & 1)) *
                (2 * nx) +
            2 * i + (c & 1);
        return zcorn[at] * in.unit;
    };
    const auto corner = [&](int i, int j, int k, int c) {
        const Point top = pillar(i + (c & 1), j + ((c >> 1) & 1), 0);
        const Point bottom = pillar(i + (c & 1), j + ((c >> 1) & 1), 1);
        const double z = z_of(i, j, k, c), s = (z - top[2]) / (bottom[2] - top[2]);
        return Point{top[0] + s * (bottom[0] - top[0]), top[1] + s * (bottom[1] - top[1]), z};
    };
    const auto active = [&](int i, int j, int k) {
        if (in.active == nullptr || in.active->empty()) return true;
        const double a =
            (*in.active)[static_cast<std::size_t>(i) +
                         static_cast<std::size_t>(nx) * (j + static_cast<std::size_t>(ny) * k)];
        return std::isnan(a) || a != 0.0;
    };
    // A cell's bottom is not above its top on any of its pillars.
    for (int k = 0; k < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                for (int c = 0; c < 4; ++c) {
                    if (z_of(i, j, k, c + 4) < z_of(i, j, k, c)) {
                        throw InputError(in.key, in.zcorn_where + "ZCORN: cell " +
                                                     ijk_text(i, j, k) + "'s bottom corner " +
                                                     std::to_string(c) + " (depth " +
                                                     std::to_string(z_of(i, j, k, c + 4)) +
                                                     " m) is above its top one (" +
                                                     std::to_string(z_of(i, j, k, c)) + " m)");
                    }
                }
            }
        }
    }
    // Neighbouring active cells share whole faces: the 4 corner depths match.
    const int step[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int k = 0; k < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                for (int axis = 0; axis < 3; ++axis) {
                    const int a = i + step[axis][0], b = j + step[axis][1], e = k + step[axis][2];
                    if (a >= nx || b >= ny || e >= nz) continue;
                    if (!active(i, j, k) || !active(a, b, e)) continue;
                    for (int c = 0; c < 8; ++c) {
                        if (((c >> axis) & 1) == 0) continue;  // the plus face's corners
                        const double za = z_of(i, j, k, c), zb = z_of(a, b, e, c ^ (1 << axis));
                        const double gap = std::abs(za - zb);
                        if (gap > 1e-6 + 1e-9 * std::max(std::abs(za), std::abs(zb))) {
                            throw InputError(
                                in.key,
                                in.zcorn_where + "ZCORN: the face between cells " +
                                    ijk_text(i, j, k) + " and " + ijk_text(a, b, e) +
                                    " does not match (corner depths " + std::to_string(za) +
                                    " and " + std::to_string(zb) +
                                    " m: a fault's throw, or a gap or overlap between "
                                    "layers); heptane's 7-point stencil has no non-neighbour "
                                    "connections, so active neighbours must share whole faces");
                        }
                    }
                }
            }
        }
    }
    const index_t M = static_cast<index_t>(nx) * ny * nz;
    CellGeometry g;
    const auto n = static_cast<std::size_t>(M);
    g.dx.resize(n), g.dy.resize(n), g.dz.resize(n), g.depth.resize(n), g.volume.resize(n);
    g.half.resize(6 * n), g.corners.resize(24 * n);
    // A face's corners in cyclic order: the two other axes' bits (0,0), (1,0), (1,1), (0,1).
    // Each cell's values are its own: any thread count gives the same bits.
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nx; ++i) {
        for (int j = 0; j < ny; ++j) {
            for (int k = 0; k < nz; ++k) {
                const auto m = static_cast<std::size_t>(k + static_cast<index_t>(nz) *
                                                                (j + static_cast<index_t>(ny) * i));
                std::array<Point, 8> p;
                Point centre{0, 0, 0};
                for (int c = 0; c < 8; ++c) {
                    p[c] = corner(i, j, k, c);
                    for (int x = 0; x < 3; ++x) {
                        centre[x] += p[c][x] / 8.0;
                        g.corners[24 * m + 3 * c + x] = p[c][x];
                    }
                }
                Point face_centre[3][2];
                for (int axis = 0; axis < 3; ++axis) {
                    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
                    for (int side = 0; side < 2; ++side) {
                        std::array<Point, 4> q;
                        const int order[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
                        Point fc{0, 0, 0};
                        for (int r = 0; r < 4; ++r) {
                            q[r] = p[(side << axis) | (order[r][0] << u) | (order[r][1] << v)];
                            for (int x = 0; x < 3; ++x) fc[x] += q[r][x] / 4.0;
                        }
                        const Point c1 = cross(minus(q[2], q[0]), minus(q[3], q[1]));
                        const Point area{0.5 * c1[0], 0.5 * c1[1], 0.5 * c1[2]};
                        const Point d = minus(fc, centre);
                        const double dd = dot(d, d);
                        g.half[6 * m + 2 * axis + side] =
                            dd > 0.0 ? std::abs(dot(area, d)) / dd : 0.0;
                        face_centre[axis][side] = fc;
                    }
                }
                const auto length = [&](int axis) {
                    const Point d = minus(face_centre[axis][1], face_centre[axis][0]);
                    return std::sqrt(dot(d, d));
                };
                // DZ is the thickness: the depth between the top and bottom faces' centres.
                g.dx[m] = length(0), g.dy[m] = length(1);
                g.dz[m] = face_centre[2][1][2] - face_centre[2][0][2];
                g.depth[m] = centre[2];
                g.volume[m] = hexahedron_volume(p);
            }
        }
    }
    return g;
}

}  // namespace heptane::grid
