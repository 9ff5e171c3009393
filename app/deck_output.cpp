#include "app/deck_output.hpp"

#include <filesystem>
#include <string>
#include <utility>

#include "core/base/errors.hpp"
#include "grid/eclipse_summary.hpp"

namespace heptane::app {
namespace {

/// output.summary: vectors by their keys, after the SUMMARY section's of schedule.eclipse.
void read_summary(const Value& v, Deck& deck) {
    if (!deck.schedule.present) v.fail("only a simulation (a deck with schedule) has a summary");
    if (!v.is_sequence()) v.fail("expected a list of summary vectors (FOPR, WOPR:P1, ...)");
    for (const Value& x : v.elements()) {
        grid::SummaryRequest q;
        try {
            q = grid::summary_request(x.string(), "");
        } catch (const InputError& e) {
            x.fail(e.detail());
        }
        q.key = x.path();  // where plan_summary's messages point
        deck.output.summary.push_back(std::move(q));
    }
}

}  // namespace

void read_output(const std::optional<Value>& v, Deck& deck) {
    deck.output.file = std::filesystem::path(deck.path).stem().string() + ".h5";
    if (!v) return;
    Mapping m(*v);
    if (auto x = m.optional("file")) deck.output.file = x->string();
    if (auto x = m.optional("save_system")) deck.output.save_system = x->boolean();
    if (auto x = m.optional("summary")) read_summary(*x, deck);
    if (auto x = m.optional("summary_rows")) {
        if (!deck.schedule.present) x->fail("only a simulation (a deck with schedule) has rows");
        deck.output.summary_report_only = x->choice({"steps", "reports"}) == 1;
    }
    m.finish();
}

}  // namespace heptane::app
