// KSPARSE parameter defaults (core/ksparse/ksparse_params.hpp); the names are in
// core/krylov/names.cpp.
#include "core/ksparse/ksparse_params.hpp"

#include <string>

#include "core/ksparse/chunked_bsr.hpp"

namespace heptane {

KsparseKernel ksparse_kernel_for(int block_size, KsparseBalance balance) {
    if (k4_takes(block_size) && balance != KsparseBalance::off) return KsparseKernel::k4;
    if (block_size <= 5) return KsparseKernel::k1;
    return block_size < 45 ? KsparseKernel::k2 : KsparseKernel::k3;
}

std::string describe(const KsparseParams& p) {
    std::string s = to_string(p.kernel);
    auto add = [&](const char* name, int v) {
        s += std::string(" ") + name + "=" + std::to_string(v);
    };
    switch (p.kernel) {
        case KsparseKernel::k1:
            add("N_ta", p.arrays_per_block);
            add("N_brows_ta", p.rows_per_array);
            break;
        case KsparseKernel::k2:
            add("N_ta", p.arrays_per_block);
            add("N_brows_ta", p.rows_per_array);
            add("N_tg", p.groups);
            break;
        case KsparseKernel::k3:
            add("nb", p.nb);
            add("N_tg", p.groups);
            add("ept", p.ept);
            break;
        case KsparseKernel::k4:
            add("N_ta", p.arrays_per_block);
            add("ept", p.ept);
            add("lambda", p.lambda);
            return s;
        case KsparseKernel::automatic:
            break;
    }
    if (p.balance == KsparseBalance::on) add("lambda", p.lambda);
    return s;
}

}  // namespace heptane
