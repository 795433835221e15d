/** \file Whole-pipeline checks: a simplifier under test that runs graphs end to end on its
 * own devices (sut::Capabilities::run; tinygrad's scheduler, codegen, renderers and
 * runtimes), checked against uopfuzz's oracles. docs/external-simplifier.md, "Runs".
 *
 * A tensor program: on every input seed where the tensor oracle has no undefined
 * behaviour, the simplifier runs it on each of its devices, and each device's outputs
 * compare with the tensor oracle's (the executor `<simplifier>-<device>`, e.g.
 * `tinygrad-PYTHON`). On the first seed it also hands back the kernels it scheduled, as a
 * Program, where `.uop` can express them; those run on uopfuzz's oracle and backends
 * (check::compare_lowered). Together the two say which stage broke, the signature's
 * culprit (`<simplifier>-<stage>`):
 *
 *   schedule  its kernels already disagree with the tensor oracle on uopfuzz's oracle
 *             (scheduling, rangeify and the kernel-graph rewrites before codegen)
 *   codegen   its kernels agree, and every device disagrees (the later rewrites, codegen)
 *   device    its kernels agree, and some device agrees where another does not (that
 *             device's renderer, compiler or runtime)
 *   pipeline  a device disagrees and its kernels could not be had to tell
 *
 * A device that raises is a crash finding signed by where it raised, on that device.
 *
 * A kernel (a simplifier at its `pipeline` stage): the original runs on the oracle and
 * each device's outputs compare with it; the culprit is `<simplifier>-pipeline`, or
 * `<simplifier>-device` where another device agrees.
 *
 * Tolerances: SEMANTICS.md's, with the zero-sign freedom the simplifier declares, and the
 * reassociated-sum bound on every float output that is a reassociable sum (its pipeline
 * may add the terms in any order).
 */
#pragma once

#include "check/differential.h"
#include "check/program_check.h"
#include "ir/kernel.h"

namespace uopfuzz::check {

/// Whether `options` check through a whole-pipeline run: an external simplifier that can
/// run graphs, for a tensor program always, for a kernel at its `pipeline` stage.
bool runs_pipeline(const CheckOptions& options, ir::UOp root);

ProgramCheckResult check_program_pipeline(ir::Context& ctx, const ir::Kernel& program,
                                          const ProgramCheckOptions& options);

CheckResult check_kernel_pipeline(ir::Context& ctx, const ir::Kernel& kernel,
                                  const CheckOptions& options);

/// The executor name of a simplifier's device: "tinygrad-PYTHON".
std::string device_executor(const std::string& simplifier, const std::string& device);

}  // namespace uopfuzz::check
