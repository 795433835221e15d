/** \file Another simplifier's lowering of a suite tensor program, run beside ours
 * (`bench --suite real --tinygrad-lowering`): the kernels tinygrad schedules for the program,
 * handed back as a Program where `.uop` can express them (the same run request `fuzz
 * --compare builtin,tinygrad --level tensor` makes, sut::RunRequest::program), compiled on
 * the backend that runs ours, checked against our outputs and timed against our lowering in
 * one round of the latency detector (interleaved samples, the same clock). The simplifier
 * schedules the program on inputs of zeros: the kernels depend on the shapes only, and its
 * adapter declines values its devices may compute otherwise than the tensor oracle (a
 * float sum's order); the kernels are then checked on the real inputs.
 *
 * No figure is made for a lowering that cannot be had as kernels (its reason is the
 * error), that does not verify, that a backend refuses, or whose outputs differ from ours.
 */
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "backends/backend.h"
#include "check/latency.h"
#include "ir/program.h"
#include "ir/result.h"
#include "ir/run_io.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::bench {

/// The kernels and intermediate buffers of one lowering.
struct LoweringCounts {
  size_t kernels = 0, intermediates = 0;
};
LoweringCounts counts_of(const ir::Program& program);

/// Ours and theirs at one size on one backend, timed in the same round.
struct LoweringBeside {
  std::string simplifier;             ///< whose lowering ("tinygrad")
  std::string scheduled_for;          ///< the simplifier's device it scheduled for ("CPU")
  double ours_ns = 0, theirs_ns = 0;  ///< median run times of the whole Programs
  double ratio = 0;                   ///< ours_ns / theirs_ns (above 1: theirs is faster)
  LoweringCounts ours, theirs;
  bool device_clock = false;
};

/// What ours is: the Program uopfuzz runs for the tensor program (lowered and simplified),
/// compiled, and its outputs on `inputs` (by REALIZE index).
struct OurLowering {
  const ir::Program* program = nullptr;
  backends::Kernel* compiled = nullptr;
  const std::map<int, ir::Buffer>* outputs = nullptr;
};

/// Asks `sim` for its lowering of the tensor program `root` (its device "CPU" where it has
/// one, else its first; scheduled on inputs of zeros of `inputs`' shapes), compiles it on
/// `backend`, checks its outputs on `inputs` against ours (floats within `tolerance` of the larger
/// magnitude, others exactly) and times the two. The error says why there is no figure.
Result<LoweringBeside> lowering_beside(sut::Simplifier& sim, ir::Context& ctx, ir::UOp root,
                                       const ir::Inputs& inputs, backends::Backend& backend,
                                       const OurLowering& ours, double tolerance,
                                       const check::LatencyOptions& latency);

/// "" when the buffers agree (floats within `tolerance` of the larger magnitude, others
/// bit for bit); else the first difference.
std::string output_disagreement(const std::map<int, ir::Buffer>& a,
                                const std::map<int, ir::Buffer>& b, double tolerance);

}  // namespace uopfuzz::bench
