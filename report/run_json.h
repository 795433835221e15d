/** \file The result of `uopfuzz run FILE --json` (schema in docs/cli.md): a case's run on one
 * backend, its outputs and how they meet the header's expectations. */
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "check/expectations.h"
#include "ir/kernel.h"

namespace uopfuzz::report {

/// One value as JSON: a number of its dtype's kind, NaN and the infinities as their text.
nlohmann::ordered_json value_json(ir::DType dt, ir::Value v);

/// The run status as --json and the text output spell it: ok, ub or step-limit.
const char* status_name(oracle::RunStatus s);

/// The run as --json prints it. `failed_kernel`: a lowered Program's kernel that hit UB (-1:
/// none); `name_of` and `line_of`: a node's printed name and its line in the file.
nlohmann::ordered_json run_json(const std::string& file, const ir::KernelHeader& h,
                                const std::string& backend, uint64_t seed, const check::CaseRun& c,
                                int failed_kernel,
                                const std::function<std::string(ir::UOp)>& name_of,
                                const std::function<int(ir::UOp)>& line_of);

}  // namespace uopfuzz::report
