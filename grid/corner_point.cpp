#include "grid/corner_point.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/base/errors.hpp"

namespace heptane::grid {
namespace {

using Point = std::array<double, 3>;

Point minus(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Point cross(const Point& a, const Point& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

/// The point at depth z on the pillar from `top` to `bottom` (linear along the pillar).
Point on_pillar(const Point& top, const Point& bottom, double z) {
    const double s = (z - top[2]) / (bottom[2] - top[2]);
    return Point{top[0] + s * (bottom[0] - top[0]), top[1] + s * (bottom[1] - top[1]), z};
}

/// A cell's face on the two pillars it shares with the next column: its top and bottom corner
/// depths on the first pillar (index 0) and on the second (index 1), metres.
struct FaceDepths {
    double top[2], bottom[2];
};

/// The overlap of two faces on one pillar pair: its area vector and centre; `connected` is
/// false where the faces do not overlap or only touch.
struct Overlap {
    Point area{0, 0, 0}, centre{0, 0, 0};
    bool connected = false;
};

/// The overlap of faces a and b, both on the surface between the pillars (tops[p], bottoms[p]),
/// p = 0, 1 (design decision 63). In (s, z), s in [0, 1] from the first pillar to the second,
/// a face is top(s) <= z <= bottom(s), both linear in s, so the overlap lies between the
/// higher top T (convex) and the lower bottom B (concave): a convex polygon whose vertices
/// are at s = 0, 1, where the tops or the bottoms cross, and where the thickness B - T
/// (concave, so >= 0 on one interval) changes sign. It connects where B - T exceeds `tol`
/// somewhere (touching along an edge or at a point does not). A vertex (s, z) is the point
/// at depth z on each pillar, linear in s between them; the area vector is half the sum of
/// the edges' cross products (a triangle fan from the first vertex) and the centre the
/// fan's area-weighted centroid (the vertices' mean where the area is 0).
Overlap face_overlap(const std::array<Point, 2>& tops, const std::array<Point, 2>& bottoms,
                     const FaceDepths& a, const FaceDepths& b, double tol) {
    // (1 - s) v0 + s v1: exact at both pillars.
    const auto lerp = [](const double v[2], double s) { return (1.0 - s) * v[0] + s * v[1]; };
    const auto top = [&](double s) { return std::max(lerp(a.top, s), lerp(b.top, s)); };
    const auto bottom = [&](double s) { return std::min(lerp(a.bottom, s), lerp(b.bottom, s)); };
    // The knots: 0, where the tops and where the bottoms cross (strictly inside), 1.
    std::array<double, 4> knot{};
    int n = 0;
    knot[n++] = 0.0;
    const auto crossing = [&](const double u[2], const double v[2]) {
        const double d0 = u[0] - v[0], d1 = u[1] - v[1];
        if ((d0 < 0.0 && d1 > 0.0) || (d0 > 0.0 && d1 < 0.0)) knot[n++] = d0 / (d0 - d1);
    };
    crossing(a.top, b.top);
    crossing(a.bottom, b.bottom);
    if (n == 3 && knot[2] < knot[1]) std::swap(knot[1], knot[2]);
    knot[n++] = 1.0;
    // B - T is linear between the knots: its largest value is at one of them.
    std::array<double, 4> h{};
    double most = -1.0;
    for (int r = 0; r < n; ++r) {
        h[r] = bottom(knot[r]) - top(knot[r]);
        most = std::max(most, h[r]);
    }
    Overlap o;
    if (!(most > tol)) return o;
    int first = 0, last = n - 1;
    while (h[first] < 0.0) ++first;
    while (h[last] < 0.0) --last;
    // The overlap's s: from where B - T turns non-negative to where it turns negative.
    const auto zero = [&](int r0, int r1) {
        return knot[r0] + (knot[r1] - knot[r0]) * (h[r0] / (h[r0] - h[r1]));
    };
    std::array<double, 6> s{};
    int ns = 0;
    if (first > 0) s[ns++] = zero(first - 1, first);
    for (int r = first; r <= last; ++r) s[ns++] = knot[r];
    if (last < n - 1) s[ns++] = zero(last + 1, last);
    // The polygon: along the tops from the first pillar's side, back along the bottoms.
    std::array<Point, 12> v;
    int nv = 0;
    const auto vertex = [&](double at, double z) {
        const Point p0 = on_pillar(tops[0], bottoms[0], z);
        const Point p1 = on_pillar(tops[1], bottoms[1], z);
        const Point p{(1.0 - at) * p0[0] + at * p1[0], (1.0 - at) * p0[1] + at * p1[1],
                      (1.0 - at) * p0[2] + at * p1[2]};
        if (nv > 0 && p == v[nv - 1]) return;  // a pinched end: one vertex
        v[nv++] = p;
    };
    for (int r = 0; r < ns; ++r) vertex(s[r], top(s[r]));
    for (int r = ns - 1; r >= 0; --r) vertex(s[r], bottom(s[r]));
    if (nv > 1 && v[nv - 1] == v[0]) --nv;
    double weight = 0.0;
    Point sum{0, 0, 0};
    for (int r = 1; r + 1 < nv; ++r) {
        const Point t = cross(minus(v[r], v[0]), minus(v[r + 1], v[0]));
        const double w = 0.5 * std::sqrt(dot(t, t));
        for (int x = 0; x < 3; ++x) {
            o.area[x] += 0.5 * t[x];
            sum[x] += w * (v[0][x] + v[r][x] + v[r + 1][x]) / 3.0;
        }
        weight += w;
    }
    for (int x = 0; x < 3; ++x) {
        if (weight > 0.0) {
            o.centre[x] = sum[x] / weight;
        } else {
            for (int r = 0; r < nv; ++r) o.centre[x] += v[r][x] / nv;
        }
    }
    o.connected = true;
    return o;
}

/// |A . d| / (d . d), d from `centre` to the face's centre: a face's geometric half
/// transmissibility (0 where d is 0).
double half_transmissibility(const Point& area, const Point& face_centre, const Point& centre) {
    const Point d = minus(face_centre, centre);
    const double dd = dot(d, d);
    return dd > 0.0 ? std::abs(dot(area, d)) / dd : 0.0;
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

double half_through_bottom(const CellGeometry& g, index_t face_cell, index_t m) {
    const auto corner = [&](index_t c, int q) {
        const std::size_t at = 24 * static_cast<std::size_t>(c) + 3 * q;
        return Point{g.corners[at], g.corners[at + 1], g.corners[at + 2]};
    };
    // The bottom face's corners in cyclic order (corner_point_cells' order: 4, 5, 7, 6).
    const std::array<Point, 4> q{corner(face_cell, 4), corner(face_cell, 5), corner(face_cell, 7),
                                 corner(face_cell, 6)};
    Point face_centre{0, 0, 0}, centre{0, 0, 0};
    for (int r = 0; r < 4; ++r)
        for (int x = 0; x < 3; ++x) face_centre[x] += q[r][x] / 4.0;
    for (int c = 0; c < 8; ++c) {
        const Point p = corner(m, c);
        for (int x = 0; x < 3; ++x) centre[x] += p[x] / 8.0;
    }
    const Point c1 = cross(minus(q[2], q[0]), minus(q[3], q[1]));
    return half_transmissibility(Point{0.5 * c1[0], 0.5 * c1[1], 0.5 * c1[2]}, face_centre, centre);
}

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
        return on_pillar(pillar(i + (c & 1), j + ((c >> 1) & 1), 0),
                         pillar(i + (c & 1), j + ((c >> 1) & 1), 1), z_of(i, j, k, c));
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
    // Corner depths za and zb match within 1e-6 m + 1e-9 of the depth.
    const auto match = [](double za, double zb) {
        return std::abs(za - zb) <= 1e-6 + 1e-9 * std::max(std::abs(za), std::abs(zb));
    };
    // Active cells of one column share whole faces, or leave a void between them (design
    // decision 70): joined through the upper cell's bottom face unless the void exceeds
    // in.max_void. An overlap is refused.
    struct Void {
        index_t a;    // the upper cell; the lower one is a + 1
        bool joined;  // the void is at most in.max_void
    };
    std::vector<Void> voids;
    for (int k = 0; k + 1 < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                if (!active(i, j, k) || !active(i, j, k + 1)) continue;
                bool matching = true;
                double least = 0.0;            // the void, the least over the pillars
                for (int c = 4; c < 8; ++c) {  // the bottom face's corners
                    const double za = z_of(i, j, k, c), zb = z_of(i, j, k + 1, c - 4);
                    least = c == 4 ? zb - za : std::min(least, zb - za);
                    if (match(za, zb)) continue;
                    matching = false;
                    if (zb < za) {
                        throw InputError(
                            in.key, in.zcorn_where + "ZCORN: cells " + ijk_text(i, j, k) + " and " +
                                        ijk_text(i, j, k + 1) + " overlap (corner depths " +
                                        std::to_string(za) + " and " + std::to_string(zb) +
                                        " m: the upper cell's bottom lies below the lower "
                                        "cell's top); the layers of a column may touch or "
                                        "leave a void, not overlap");
                    }
                }
                if (!matching) {
                    const index_t a =
                        k + static_cast<index_t>(nz) * (j + static_cast<index_t>(ny) * i);
                    voids.push_back({a, std::max(0.0, least) <= in.max_void});
                }
            }
        }
    }
    const index_t M = static_cast<index_t>(nx) * ny * nz;
    CellGeometry g;
    const auto n = static_cast<std::size_t>(M);
    g.dx.resize(n), g.dy.resize(n), g.dz.resize(n), g.depth.resize(n), g.volume.resize(n);
    g.half.resize(6 * n), g.corners.resize(24 * n);
    std::vector<Point> centres(n);
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
                centres[m] = centre;
                g.volume[m] = hexahedron_volume(p);
            }
        }
    }
    // Faults (design decision 63): neighbouring columns whose shared faces do not all match.
    struct ColumnPair {
        int i, j, axis;  // column (i, j) and the next along axis (0: i, 1: j)
    };
    std::vector<ColumnPair> faulted;
    for (int i = 0; i < nx; ++i) {
        for (int j = 0; j < ny; ++j) {
            for (int axis = 0; axis < 2; ++axis) {
                const int ib = i + (axis == 0), jb = j + (axis == 1);
                if (ib >= nx || jb >= ny) continue;
                bool matching = true;
                for (int k = 0; k < nz && matching; ++k) {
                    for (int c = 0; c < 8; ++c) {
                        if (((c >> axis) & 1) == 0) continue;  // the plus face's corners
                        if (!match(z_of(i, j, k, c), z_of(ib, jb, k, c ^ (1 << axis)))) {
                            matching = false;
                            break;
                        }
                    }
                }
                if (!matching) faulted.push_back({i, j, axis});
            }
        }
    }
    // Each column pair writes its own faces' halves and its own list: any thread count gives
    // the same bits.
    std::vector<std::vector<CellConnection>> found(faulted.size());
    const auto num_faulted = static_cast<std::ptrdiff_t>(faulted.size());
#pragma omp parallel for schedule(dynamic)
    for (std::ptrdiff_t f = 0; f < num_faulted; ++f) {
        const int i = faulted[f].i, j = faulted[f].j, axis = faulted[f].axis;
        const int ib = i + (axis == 0), jb = j + (axis == 1), other = 1 - axis;
        // The shared pillars, in the order of the other lateral axis's corner bit; the minus
        // column's corners on them have the axis bit set, the plus column's have it clear.
        std::array<Point, 2> tops, bottoms;
        for (int r = 0; r < 2; ++r) {
            const int c = (1 << axis) | (r << other);
            tops[r] = pillar(i + (c & 1), j + ((c >> 1) & 1), 0);
            bottoms[r] = pillar(i + (c & 1), j + ((c >> 1) & 1), 1);
        }
        const auto face = [&](int ci, int cj, int k, int bit) {
            FaceDepths d;
            for (int r = 0; r < 2; ++r) {
                const int c = (bit << axis) | (r << other);
                d.top[r] = z_of(ci, cj, k, c);
                d.bottom[r] = z_of(ci, cj, k, c | 4);
            }
            return d;
        };
        const auto number = [&](int ci, int cj, int k) {
            return k + static_cast<index_t>(nz) * (cj + static_cast<index_t>(ny) * ci);
        };
        for (int k = 0; k < nz; ++k) {
            g.half[6 * static_cast<std::size_t>(number(i, j, k)) + 2 * axis + 1] = 0.0;
            g.half[6 * static_cast<std::size_t>(number(ib, jb, k)) + 2 * axis] = 0.0;
        }
        for (int ka = 0; ka < nz; ++ka) {
            if (!active(i, j, ka)) continue;
            const FaceDepths fa = face(i, j, ka, 1);
            for (int kb = 0; kb < nz; ++kb) {
                if (!active(ib, jb, kb)) continue;
                const FaceDepths fb = face(ib, jb, kb, 0);
                // B - T <= each bottom less the other's top: no overlap unless both are
                // positive somewhere (at a pillar: they are linear).
                if (std::max(fa.bottom[0] - fb.top[0], fa.bottom[1] - fb.top[1]) <= 0.0 ||
                    std::max(fb.bottom[0] - fa.top[0], fb.bottom[1] - fa.top[1]) <= 0.0) {
                    continue;
                }
                double depth = 0.0;
                for (int r = 0; r < 2; ++r) {
                    for (double z : {fa.top[r], fa.bottom[r], fb.top[r], fb.bottom[r]}) {
                        depth = std::max(depth, std::abs(z));
                    }
                }
                const Overlap o = face_overlap(tops, bottoms, fa, fb, 1e-6 + 1e-9 * depth);
                if (!o.connected) continue;
                const index_t a = number(i, j, ka), b = number(ib, jb, kb);
                const double half_a =
                    half_transmissibility(o.area, o.centre, centres[static_cast<std::size_t>(a)]);
                const double half_b =
                    half_transmissibility(o.area, o.centre, centres[static_cast<std::size_t>(b)]);
                if (ka == kb) {
                    g.half[6 * static_cast<std::size_t>(a) + 2 * axis + 1] = half_a;
                    g.half[6 * static_cast<std::size_t>(b) + 2 * axis] = half_b;
                } else {
                    found[f].push_back({a, b, axis, half_a, half_b});
                }
            }
        }
    }
    // Voids between the layers of a column (decision 70, OPM Flow's rule): the lower cell's
    // half runs from its centre to the upper cell's bottom face, across the void; beyond
    // in.max_void the two are not joined.
    for (const Void& v : voids) {
        const auto a = static_cast<std::size_t>(v.a);
        g.half[6 * (a + 1) + 4] = v.joined ? half_through_bottom(g, v.a, v.a + 1) : 0.0;
        if (!v.joined) g.half[6 * a + 5] = 0.0;
    }
    for (const auto& list : found) g.nnc.insert(g.nnc.end(), list.begin(), list.end());
    std::sort(g.nnc.begin(), g.nnc.end(), [](const CellConnection& x, const CellConnection& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    return g;
}

}  // namespace heptane::grid
