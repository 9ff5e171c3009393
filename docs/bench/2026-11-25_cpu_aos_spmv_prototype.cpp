// Prototype (not part of the build): y = GH x with each cell's 7 K x K blocks contiguous
// (cell-major "AoS") instead of Bdia's planes, to measure what a CPU-side layout could give
// (docs/BENCHMARKS.md, issue 24). g++ -O3 -fopenmp -ffp-contract=off -std=c++17 FILE -o aos &&
// OMP_NUM_THREADS=2 ./aos. Bytes counted: every stored value (padding included), x and y.
#include <chrono>
#include <cstdio>
#include <vector>
#include <cstdlib>
#include <omp.h>
#include <algorithm>
// AoS: per cell 7 K x K blocks [d][r][c] contiguous; x gathers from neighbours.
template <int K>
void spmv_aos(int nx, int ny, int nz, const double* a, const double* x, double* y) {
    const long off[7] = {-(long)nz * ny, -nz, -1, 0, 1, nz, (long)nz * ny};
#pragma omp parallel for schedule(static)
    for (long col = 0; col < (long)nx * ny; ++col) {
        const long i = col / ny, j = col % ny;
        const bool cex[7] = {i > 0, j > 0, true, true, true, j < ny - 1, i < nx - 1};
        for (int k = 0; k < nz; ++k) {
            const long m = col * nz + k;
            bool ex[7];
            for (int d = 0; d < 7; ++d) ex[d] = cex[d];
            ex[2] = k > 0; ex[4] = k < nz - 1;
            const double* am = a + m * 7 * K * K;
            double acc[K] = {};
            for (int d = 0; d < 7; ++d) {
                if (!ex[d]) continue;
                const double* xn = x + (m + off[d]) * K;
                const double* b = am + d * K * K;
                for (int r = 0; r < K; ++r) {
                    double s = acc[r];
                    for (int c = 0; c < K; ++c) { double p = b[r * K + c] * xn[c]; s = s + p; }
                    acc[r] = s;
                }
            }
            for (int r = 0; r < K; ++r) y[m * K + r] = acc[r];
        }
    }
}
template <int K> void run(int g) {
    const long M = (long)g * g * g;
    std::vector<double> a(M * 7 * K * K), x(M * K), y(M * K);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)a.size(); ++i) a[i] = 1.0 / (1 + i % 7);
    for (auto& v : x) v = 1.0;
    double best = 1e9; std::vector<double> ts;
    for (int it = 0; it < 10; ++it) {
        auto t0 = std::chrono::steady_clock::now();
        spmv_aos<K>(g, g, g, a.data(), x.data(), y.data());
        ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ts.begin(), ts.end());
    double t = ts[5];
    double bytes = (double)a.size() * 8 + 2.0 * M * K * 8;
    printf("K=%d g=%d: %.1f us, %.1f GB/s\n", K, g, t * 1e6, bytes / t / 1e9);
}
int main() { run<1>(128); run<2>(128); run<3>(64); run<4>(64); run<8>(64); }
