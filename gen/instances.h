/** \file Random instances of the simplifier rules' left-hand sides, one builder per rule family,
 * for the rule self-check (Halide's rule fuzzing, applied to whole kernels). They are made with the
 * node constructors generate() uses (gen/nodes.h). */
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "gen/instance_weights.h"
#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::gen {

// The rule families (gen/instance_families.def), each with a builder biased to its rules'
// left-hand sides and to the edges their gates protect.
enum class InstanceFamily : uint8_t {
#define FAMILY(e, name, builder, what) e,
#include "gen/instance_families.def"
#undef FAMILY
  kCount
};

std::string_view family_name(InstanceFamily f);

/// Edges of the instance space, all off by default: the full self-check and InstanceGen's
/// default take everything(), and each regression test turns on its own edge alone, so it
/// can fail on its own. The first five each exposed a
/// simplifier bug (now fixed; simplifier_selfcheck_test.cpp keeps the minimized cases);
/// their comments describe the bug as found. A new edge that finds a bug starts off here
/// with a failing case in that test until it is fixed.
struct InstancePolicy {
  /// A REDUCE over RANGE(1): the kernel-graph stage folds the range to CONST 0 without
  /// flattening, and Analysis::bounds of the REDUCE then reads src(0) of that CONST (crash).
  bool reduce_range_of_one = false;
  /// Gates that are statically false (r < 0): where_true folds WHERE(false, idx, INVALID)
  /// to a bare INVALID index, which the verifier rejects.
  bool always_false_gates = false;
  /// An END or REDUCE over several ranges, one with an end that can be <= 0:
  /// merge_adjacent has no end >= 1 gate. A CONST end 0 fuses into RANGE(0), whose
  /// bounds are {0, 0}: its divmods fold to constants and flatten_range drops the loop, so
  /// a body that never ran runs once. Two negative ends multiply into a positive trip
  /// count (reached when merge-more-divmod lets a merge of two VAR ends through).
  bool zero_trip_merges = false;
  /// Operations that can fault (division by an expression, index constants near the
  /// int64 limits) inside loops that may run zero times: folding a range-dependent operand
  /// to a constant hoists the operation out of the loop, where it is evaluated (and
  /// faults) although the loop never ran.
  bool zero_trip_hoisting = false;
  /// A float REDUCE MUL over several ranges: reduce_unparented raises to the power of each
  /// dropped range in turn ((x*x)*(x*x)*(x*x) for 2 x 3) or of a kept partial product,
  /// which rounds differently from the REDUCE's left fold x*x*x*x*x*x.
  bool float_partial_products = false;
  /// RANGE ends below zero (zero-trip loops); products of two are positive.
  bool negative_range_ends = false;
  /// -0, inf, nan and huge float constants inside reductions.
  bool float_edge_values = false;
  /// Float constants whose repeated sum rounds (0.1, 1e30) inside reductions: a closed
  /// form v * N rounds once where the REDUCE rounds at every step (seven times 0.1f is
  /// 0.70000005, 0.1f * 7 is 0.7).
  bool float_inexact_sums = false;

  static InstancePolicy everything() {
    InstancePolicy p;
    p.reduce_range_of_one = p.always_false_gates = p.zero_trip_merges = p.zero_trip_hoisting = true;
    p.float_partial_products = p.negative_range_ends = p.float_edge_values = true;
    p.float_inexact_sums = true;
    return p;
  }
};

/// Builds one random kernel per call, biased to one rule family. Every kernel passes
/// ir::verify by construction; whether it has undefined behaviour for some input is
/// checked by the oracle (such inputs are skipped, never compared).
class InstanceGen {
 public:
  InstanceGen(ir::Context& ctx, uint64_t seed, InstancePolicy policy = InstancePolicy::everything(),
              InstanceWeights weights = {});
  InstanceGen(InstanceGen&&) noexcept;
  InstanceGen& operator=(InstanceGen&&) noexcept;
  ~InstanceGen();

  ir::Kernel make(InstanceFamily f);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace uopfuzz::gen
