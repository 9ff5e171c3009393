#pragma once
/// @file input_error_of(f): runs f, which must throw InputError, and returns its what() (a
/// test failure when it throws nothing).
#include <gtest/gtest.h>

#include <string>

#include "core/base/errors.hpp"

namespace heptane::test {

template <typename F>
std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no InputError thrown";
    return {};
}

}  // namespace heptane::test
