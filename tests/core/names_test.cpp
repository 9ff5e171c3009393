// The table of names (core/krylov/names.hpp): every value of every solver enum has one row, the
// deck names round-trip and are unique, the docs are written, and unknown names are refused.
#include "core/krylov/names.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace heptane {
namespace {

template <class E>
void check_table(const std::vector<E>& every_value) {
    const auto& table = name_table<E>();
    EXPECT_EQ(table.size(), every_value.size()) << "a value without a row, or a row too many";
    std::set<std::string> names, labels;
    for (E e : every_value) {
        const NameRow<E>& row = name_row(e);
        EXPECT_EQ(row.value, e) << "no row for a value";
        ASSERT_NE(row.name, nullptr);
        EXPECT_TRUE(names.insert(row.name).second) << "duplicate deck name " << row.name;
        EXPECT_TRUE(labels.insert(to_string(e)).second) << "duplicate label " << to_string(e);
        EXPECT_EQ(parse_name<E>(deck_name(e)), e) << deck_name(e);
        EXPECT_GT(std::string(doc(e)).size(), 10u) << deck_name(e) << " has no doc";
    }
    EXPECT_EQ(deck_names<E>().size(), every_value.size());
    EXPECT_FALSE(parse_name<E>("no_such_choice").has_value());
    EXPECT_FALSE(parse_name<E>("").has_value());
}

TEST(Names, EveryEnumHasOneRowPerValue) {
    check_table<Method>({Method::bicgstab, Method::qmr, Method::block_jacobi, Method::block_gs});
    check_table<PreconditionerKind>(
        {PreconditionerKind::none, PreconditionerKind::point_block_jacobi,
         PreconditionerKind::line_jacobi, PreconditionerKind::block_jacobi,
         PreconditionerKind::cpr});
    check_table<Backend>({Backend::automatic, Backend::cpu, Backend::gpu});
    check_table<GpuKernel>({GpuKernel::in_kernel, GpuKernel::multi_kernel, GpuKernel::library});
    check_table<SpmvKind>({SpmvKind::bdia, SpmvKind::ksparse});
    check_table<LibraryFormat>({LibraryFormat::bsr, LibraryFormat::bsr_legacy, LibraryFormat::csr});
    check_table<KsparseKernel>({KsparseKernel::automatic, KsparseKernel::k1, KsparseKernel::k2,
                                KsparseKernel::k3, KsparseKernel::k4});
    check_table<KsparseBalance>(
        {KsparseBalance::automatic, KsparseBalance::off, KsparseBalance::on});
}

// The spellings that reports, HDF5 files, tuning caches and tests already contain.
TEST(Names, SpellingsThatFilesAlreadyHoldAreKept) {
    EXPECT_STREQ(to_string(Method::block_gs), "block_gs");
    EXPECT_STREQ(to_string(PreconditionerKind::point_block_jacobi), "point_block_jacobi");
    EXPECT_STREQ(deck_name(Backend::automatic), "auto");
    EXPECT_STREQ(to_string(GpuKernel::multi_kernel), "multi_kernel");
    EXPECT_STREQ(deck_name(LibraryFormat::bsr_legacy), "bsr_legacy");
    EXPECT_STREQ(to_string(LibraryFormat::bsr_legacy), "cusparse_bsrmv");
    EXPECT_STREQ(to_string(LibraryFormat::csr), "cusparse_csr");
    EXPECT_STREQ(deck_name(KsparseKernel::automatic), "auto");
    EXPECT_STREQ(to_string(KsparseKernel::automatic), "automatic");
    EXPECT_STREQ(to_string(KsparseBalance::on), "on");
    EXPECT_EQ(parse_name<SpmvKind>("ksparse"), SpmvKind::ksparse);
}

}  // namespace
}  // namespace heptane
