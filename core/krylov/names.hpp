#pragma once
/// @file One table of names for the solver choices (issue 16, item 3; Ginkgo keeps one
/// registry of its configuration names): for each enum value its deck spelling, its report
/// label where that differs, and a one-line doc. The deck reader, `--set`, the CLI, the run
/// report, the HDF5 attributes and bench all read it, so adding a choice is one row here.
#include <optional>
#include <string>
#include <vector>

#include "core/krylov/solver_settings.hpp"
#include "core/ksparse/ksparse_params.hpp"

namespace heptane {

/// One choice of an enum E.
template <class E>
struct NameRow {
    E value;
    const char* name;   ///< deck and command-line spelling
    const char* label;  ///< report spelling (to_string); nullptr: the name
    const char* doc;    ///< one line for docs and --help
};

/// The table of E, in the order the docs list the choices (one specialization per enum,
/// defined in names.cpp).
template <class E>
const std::vector<NameRow<E>>& name_table();

template <>
const std::vector<NameRow<Method>>& name_table<Method>();
template <>
const std::vector<NameRow<PreconditionerKind>>& name_table<PreconditionerKind>();
template <>
const std::vector<NameRow<Backend>>& name_table<Backend>();
template <>
const std::vector<NameRow<GpuKernel>>& name_table<GpuKernel>();
template <>
const std::vector<NameRow<SpmvKind>>& name_table<SpmvKind>();
template <>
const std::vector<NameRow<LibraryFormat>>& name_table<LibraryFormat>();
template <>
const std::vector<NameRow<KsparseKernel>>& name_table<KsparseKernel>();
template <>
const std::vector<NameRow<KsparseBalance>>& name_table<KsparseBalance>();
template <>
const std::vector<NameRow<CprWeights>>& name_table<CprWeights>();
template <>
const std::vector<NameRow<MgCycle>>& name_table<MgCycle>();
template <>
const std::vector<NameRow<MgSmoother>>& name_table<MgSmoother>();

/// The row of e (every value has one: names_test checks it).
template <class E>
const NameRow<E>& name_row(E e) {
    for (const NameRow<E>& row : name_table<E>()) {
        if (row.value == e) return row;
    }
    return name_table<E>().front();  // unreachable for a valid E
}

/// The deck spelling of e ("point_block_jacobi", "auto").
template <class E>
const char* deck_name(E e) {
    return name_row(e).name;
}

/// The one-line doc of e.
template <class E>
const char* doc(E e) {
    return name_row(e).doc;
}

/// The value spelled `name` in a deck or on the command line; nullopt when none is.
template <class E>
std::optional<E> parse_name(const std::string& name) {
    for (const NameRow<E>& row : name_table<E>()) {
        if (name == row.name) return row.value;
    }
    return std::nullopt;
}

/// Every deck spelling of E, in table order (choice lists, CLI IsMember checks).
template <class E>
std::vector<std::string> deck_names() {
    std::vector<std::string> out;
    for (const NameRow<E>& row : name_table<E>()) out.emplace_back(row.name);
    return out;
}

/// The report spelling of the choices that have one (the deck spelling otherwise):
/// to_string(LibraryFormat::bsr) is "cusparse_bsr", to_string(KsparseKernel::automatic) is
/// "automatic"; to_string(Method) and to_string(PreconditionerKind) are declared beside
/// their enums.
const char* to_string(Backend b);
const char* to_string(GpuKernel k);
const char* to_string(SpmvKind s);
const char* to_string(LibraryFormat f);

}  // namespace heptane
