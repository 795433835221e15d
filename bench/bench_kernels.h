/** \file Kernels and statistics the benchmark suites share. */
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check/latency.h"

namespace uopfuzz::bench {

using check::median;  // the detector's median: one definition for every figure

/// out[i] = a[i] * b[i] + c[i], float32, n elements, over a range of the given axis type
/// (GLOBAL: a compiled backend may split it over threads or invocations).
inline std::string elementwise(int64_t n, std::string_view axis = "GLOBAL") {
  return fmt::format(R"(
%0 = PARAM slot=0 size={0} out : float32
%1 = CONST {0} : index
%2 = RANGE %1 axis=0 {1} : index
%3 = INDEX %0 %2 : float32
%4 = PARAM slot=1 size={0} in : float32
%5 = INDEX %4 %2 : float32
%6 = LOAD %5 : float32
%7 = PARAM slot=2 size={0} in : float32
%8 = INDEX %7 %2 : float32
%9 = LOAD %8 : float32
%10 = MUL %6 %9 : float32
%11 = PARAM slot=3 size={0} in : float32
%12 = INDEX %11 %2 : float32
%13 = LOAD %12 : float32
%14 = ADD %10 %13 : float32
%15 = STORE %3 %14 : void
%16 = END %15 %2 : void
%17 = SINK %16 : void
)",
                     n, axis);
}

}  // namespace uopfuzz::bench
