/** \file The latency-regression detector: is the rewritten kernel slower than the original
 * on one backend and device, beyond doubt?
 *
 * A round times the two compiled kernels interleaved (ABBA order, so that a drift of the
 * machine's speed during the round falls on both alike), at least 9 samples each after
 * warm-up runs. A sample batches as many runs as it takes to last min_sample_seconds, so
 * that timer resolution and call overhead do not drown a short kernel. The round counts
 * as a regression when the rewrite's median is at least min_slowdown times the
 * original's AND a one-sided Mann-Whitney U test says the rewrite's samples are larger
 * with p < alpha: the test guards against noise, the effect size against differences
 * too small to matter. Shared machines are noisy, so a regression is confirmed only when
 * an independent second round agrees; only a confirmed regression is a finding.
 *
 * Where the backend has a device clock (Vulkan's GPU timestamps) samples use it; the
 * host's wall clock otherwise.
 */
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ir/result.h"
#include "oracle/interpreter.h"

namespace uopfuzz::check {

struct LatencyOptions {
  std::string backend = "cpu";  ///< where the kernels are timed (backends/registry.h)
  int samples = 15;             ///< timed samples of each kernel per round (at least 9)
  int warmup = 3;               ///< untimed runs of each kernel before a round
  double min_slowdown = 1.10;   ///< the rewrite's median must be this many times the original's
  double alpha = 0.01;          ///< and the U test's one-sided p-value below this
  double min_sample_seconds = 2e-4;  ///< a sample batches runs until it lasts about this long
  bool confirm = true;               ///< a regression counts only if an independent rerun agrees
  int threads = 1;                   ///< RunOptions::threads of every timed run
};

/// A one-sided Mann-Whitney U test of "b tends to be larger than a".
struct MannWhitney {
  double u = 0;          ///< pairs (a_i, b_j) with a_i < b_j, ties counting one half
  double p_greater = 1;  ///< P(U >= u) when a and b come from one distribution
  bool exact = false;    ///< p from U's exact distribution (no ties, both sizes <= 50); else normal
                         ///< approximation
};
MannWhitney mann_whitney_greater(std::span<const double> a, std::span<const double> b);

/// The median of `v` (the mean of the two middle values of an even count); 0 when empty.
double median(std::vector<double> v);

/// One round of interleaved timings.
struct LatencyRound {
  std::vector<double> original, rewritten;  ///< seconds per run, one entry per sample
  int runs_per_sample = 1;
  bool device_clock = false;  ///< samples are GPU timestamps, not host time
  double ratio = 1;           ///< median(rewritten) / median(original)
  MannWhitney test;
  bool regressed = false;  ///< ratio >= min_slowdown and p < alpha
};

struct LatencyVerdict {
  LatencyRound first;
  std::optional<LatencyRound>
      rerun;               ///< taken only when the first round regressed (and confirm is on)
  bool confirmed = false;  ///< the first round regressed, and so did the rerun (if asked for)
  /// One line: "rewritten 1.42x the original's time (p=2.1e-05, 15 samples of 40 run(s), host
  /// clock); rerun 1.39x (p=3e-05)".
  std::string summary() const;
};

/// Times both kernels as one round (inputs must be ones the oracle ran without UB).
Result<LatencyRound> time_round(backends::Kernel& original, backends::Kernel& rewritten,
                                const oracle::Inputs& inputs, const LatencyOptions& options);

/// A round, and when it regressed an independent rerun: the detector's verdict.
Result<LatencyVerdict> detect_regression(backends::Kernel& original, backends::Kernel& rewritten,
                                         const oracle::Inputs& inputs,
                                         const LatencyOptions& options);

}  // namespace uopfuzz::check
