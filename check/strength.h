/** \file How strong two simplifiers' rewrites of one kernel are, judged by what each leaves:
 * reduce loops and their trip counts, ranges, loop iterations around the stores, ALU ops and
 * loads, one figure per rule family. A kernel where one rewrite leaves more than the other is
 * a strength difference (`--compare A,B`), never a finding: both rewrites are still checked
 * for correctness on their own.
 */
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::check {

/// The rule families a difference is counted in, each judged by one figure of what is left
/// (fewer is stronger):
///   ReduceCollapse  REDUCE nodes, then their loops' trip counts
///   Range           RANGE nodes (split, merge and flatten change their number)
///   GatedShrink     iterations of the loops around the stores (a shrunk range runs fewer)
///   Symbolic        ALU nodes
///   LoadCollapse    LOAD nodes
enum class StrengthFamily : uint8_t { ReduceCollapse, Range, GatedShrink, Symbolic, LoadCollapse };
inline constexpr size_t kStrengthFamilies = 5;
std::string_view strength_family_name(StrengthFamily f);  ///< "reduce-collapse", ...
/// Every family, in enum order.
std::array<StrengthFamily, kStrengthFamilies> all_strength_families();

/// What a rewrite leaves. Trip counts use the range end's upper bound (exact for a CONST end;
/// for a VAR end its maximum), saturating at UINT64_MAX.
struct Leftover {
  uint64_t nodes = 0;
  uint64_t reduces = 0;
  uint64_t reduce_trips = 0;  ///< over the REDUCE nodes: the product of their ranges' trips
  uint64_t ranges = 0;
  uint64_t store_trips = 0;  ///< over the STOREs: the product of the open ranges' trips
  uint64_t alus = 0;
  uint64_t loads = 0;
};
/// What the kernel rooted at `root` leaves (any graph; a SINK of stores in practice).
Leftover leftover(ir::UOp root);

/// Which rewrite leaves less in one family: -1 the first, +1 the second, 0 neither.
int stronger_in(StrengthFamily f, const Leftover& a, const Leftover& b);

/// The comparison of two rewrites of one kernel.
struct StrengthComparison {
  Leftover a, b;
  std::array<int, kStrengthFamilies> stronger{};  ///< by family: stronger_in(f, a, b)
  bool differs() const;                           ///< some family has a stronger side
};
StrengthComparison compare_strength(ir::UOp a_root, ir::UOp b_root);

/// Counts over many kernels of a campaign or a set of files.
struct StrengthTally {
  std::string a, b;           ///< the two simplifiers' names
  uint64_t compared = 0;      ///< kernels both rewrote and both rewrites checked clean
  uint64_t differences = 0;   ///< of those, kernels where some family differs
  uint64_t not_compared = 0;  ///< kernels one side declined, failed on, or got a finding on
  struct Family {
    uint64_t a_stronger = 0, b_stronger = 0;  ///< kernels where that side leaves less
    uint64_t a_left = 0, b_left = 0;          ///< the family's figure summed over compared kernels
    /// The first kernels where each side was stronger (a label the caller chose: a file, a
    /// graph seed), at most kExamples each.
    std::vector<std::string> a_examples, b_examples;
  };
  static constexpr size_t kExamples = 3;
  std::array<Family, kStrengthFamilies> families{};

  /// Counts one compared kernel, labelled `label` in the examples.
  void add(const StrengthComparison& c, const std::string& label);
};

/// The family's figure that is summed in StrengthTally::Family (for ReduceCollapse: REDUCE
/// nodes).
uint64_t family_figure(StrengthFamily f, const Leftover& l);

}  // namespace uopfuzz::check
