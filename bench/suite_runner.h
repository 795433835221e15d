/** \file `uopfuzz bench --suite real`: the real-size suite (bench/suite/cases.def) swept over
 * its preset's sizes on each backend, every figure placed under the backend's measured
 * roofline (bench/roofline.h), and the rewrite's effect at each size.
 *
 * For every backend: the roofline is measured once. For every case and size: the original
 * (a kernel, or a tensor program's Program as lowered) and the faithful simplifier's
 * rewrite are compiled, their outputs checked (below), and one round of the latency
 * detector times them (check/latency.h, rerun when it regresses). A backend that cannot run
 * a case at a size refuses it with its stated limit, and the refusal is reported; no figure
 * is made up for it.
 *
 * Correctness at real sizes: the oracle is too slow for 10^8 elements, so at the preset's
 * smallest size both graphs run on the oracle first (free of undefined behaviour, and the
 * backend's outputs agree with it), and at every size the backend's outputs of the
 * original and of the rewrite agree (floats within kOutputTolerance of the larger
 * magnitude, others exactly). A disagreement is reported and the size is not timed.
 *
 * With SuiteOptions::lowering_beside, each tensor-program case at each size also gets
 * another simplifier's lowering (tinygrad's), checked against our outputs and timed beside
 * our rewritten Program (bench/lowering_beside.h); its refusals are notes too.
 *
 * A regression the detector confirms at any size is a finding: the sizes below it are
 * searched (bisection over multiples of the case's quantum) for the smallest one where it
 * is still confirmed, and the results file reports it (`size_regressions`).
 */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/lowering_beside.h"
#include "bench/roofline.h"
#include "bench/run_context.h"
#include "bench/runner.h"
#include "bench/suite/suite.h"
#include "check/latency.h"
#include "ir/result.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::bench {

/// Relative agreement asked of float outputs at real sizes: sums of millions of floats
/// added in another order differ in their last digits, a wrong kernel by far more.
inline constexpr double kOutputTolerance = 1e-2;

struct SuiteOptions {
  suite::Preset preset = suite::Preset::Small;
  std::vector<std::string> backends{"cpu"};
  std::vector<std::string> only;  ///< case names to run (empty: every case)
  int reps = 15;                  ///< timed samples of each kernel (at least 9)
  check::LatencyOptions latency;
  simplifier::SimplifyOptions simplify;  ///< the rewrite (planted bugs for tests)
  int max_search_probes = 8;             ///< sizes the regression search may time
  /// Set (`--tinygrad-lowering`): its lowering of each tensor-program case is run and timed
  /// beside ours at every size (bench/lowering_beside.h).
  std::shared_ptr<sut::Simplifier> lowering_beside;
  std::function<void(std::string_view)> on_progress;
};

/// One variant at one size, under the backend's roofline.
struct VariantFigures {
  double ns = 0;  ///< median run time
  RooflinePoint roof;
};

/// One case at one size on one backend.
struct SuitePoint {
  std::string case_name, form, backend, device;
  int64_t size = 0, bytes = 0, ops = 0;
  VariantFigures original, rewritten;
  double speedup = 1, p_value = 1;
  bool regressed = false, confirmed = false, rewrite_changed = false;
  size_t kernels_original = 1, kernels_rewritten = 1;  ///< Programs: kernels of each
  bool oracle_checked = false;  ///< this size's outputs were checked against the oracle
  bool device_clock = false;
  /// Programs with SuiteOptions::lowering_beside: the other lowering beside ours (absent
  /// where it could not be had or checked; the notes say why).
  std::optional<LoweringBeside> beside;
};

struct SizeProbe {
  int64_t size = 0;
  bool confirmed = false;
  double ratio = 0;   ///< rewritten / original median time
  std::string error;  ///< why this size could not be timed
};

/// A confirmed regression and the smallest size where it still shows.
struct SizeRegression {
  std::string case_name, backend, device;
  int64_t found_at = 0;           ///< the smallest swept size where it was confirmed
  int64_t smallest = 0;           ///< the smallest size the search confirmed it at
  double ratio = 0;               ///< at `smallest`
  std::vector<SizeProbe> probes;  ///< the search's sizes, in the order timed
};

struct SuiteResults {
  std::vector<MeasuredDevice> devices;
  std::vector<Roofline> rooflines;  ///< one per backend, in the order of SuiteOptions::backends
  std::vector<SuitePoint> points;
  std::vector<SizeRegression> regressions;
  std::vector<std::string> notes;  ///< refusals and failures, one line each
};

SuiteResults run_suite(const SuiteOptions& options);

/// The smallest multiple of `quantum` in (above, at] for which `shows` holds, by bisection,
/// given that it holds at `at` and taking it to hold at every size above one where it
/// does; at most `max_probes` calls of `shows`, each recorded in `probes`. A probe that
/// fails (an error) counts as not showing.
int64_t smallest_size_showing(int64_t above, int64_t at, int64_t quantum,
                              const std::function<Result<SizeProbe>(int64_t)>& shows,
                              int max_probes, std::vector<SizeProbe>& probes);

/// The results file of a suite run: the bench format (docs/results-format.md) with
/// `benchmarks` and `comparisons` per case and size (case "<name>/n=<size>"), plus
/// `suite`, `roofline`, `suite_points` and `size_regressions`.
nlohmann::ordered_json suite_results_json(const SuiteResults& results, suite::Preset preset,
                                          int reps);

}  // namespace uopfuzz::bench
