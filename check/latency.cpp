#include "check/latency.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace uopfuzz::check {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

namespace {

// P(U >= u) under the null hypothesis, from U's exact distribution for sizes m and n
// without ties: the number of orderings of m a's and n b's with U = k is the
// coefficient of q^k in the Gaussian binomial [m+n choose m]_q, built row by row with
// ways(i, j) = q^j * ways(i-1, j) + ways(i, j-1).
double exact_upper_tail(int m, int n, double u) {
  const int top = m * n;
  // row[j][k]: orderings of i a's and j b's with U = k (U counts pairs a < b).
  std::vector<std::vector<double>> row(n + 1, std::vector<double>(top + 1, 0.0));
  for (int j = 0; j <= n; ++j) row[j][0] = 1;  // i = 0: U is 0
  for (int i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(top + 1, 0.0));
    next[0][0] = 1;
    for (int j = 1; j <= n; ++j)
      for (int k = 0; k <= i * j; ++k) {
        // The smallest element is a b (below no a: adds nothing) or an a (below all j
        // b's: adds j pairs).
        double ways = next[j - 1][k];
        if (k >= j) ways += row[j][k - j];
        next[j][k] = ways;
      }
    row.swap(next);
  }
  const std::vector<double>& dist = row[n];
  const double total = std::accumulate(dist.begin(), dist.end(), 0.0);
  double tail = 0;
  for (int k = static_cast<int>(std::ceil(u - 1e-9)); k <= top; ++k) tail += dist[k];
  return tail / total;
}

}  // namespace

MannWhitney mann_whitney_greater(std::span<const double> a, std::span<const double> b) {
  MannWhitney r;
  const size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return r;
  bool ties = false;
  for (double x : a)
    for (double y : b) {
      if (x < y)
        r.u += 1;
      else if (x == y)
        r.u += 0.5, ties = true;
    }
  // Ties within one sample matter to the variance too.
  std::vector<double> all(a.begin(), a.end());
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  double tie_term = 0;  // sum of t^3 - t over groups of t equal values
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double t = static_cast<double>(j - i);
    if (t > 1) ties = true, tie_term += t * t * t - t;
    i = j;
  }
  if (!ties && m <= 50 && n <= 50) {
    r.exact = true;
    r.p_greater = exact_upper_tail(static_cast<int>(m), static_cast<int>(n), r.u);
    return r;
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n), N = md + nd;
  const double mean = md * nd / 2;
  const double var = md * nd / 12 * ((N + 1) - tie_term / (N * (N - 1)));
  if (var <= 0) return r;  // every value equal: no evidence either way
  const double z = (r.u - mean - 0.5) / std::sqrt(var);  // continuity correction
  r.p_greater = 0.5 * std::erfc(z / std::sqrt(2.0));
  return r;
}

std::string LatencyVerdict::summary() const {
  std::string s = fmt::format(
      "rewritten {:.2f}x the original's time (p={:.2g}, {} samples of {} run(s), {} clock)",
      first.ratio, first.test.p_greater, first.original.size(), first.runs_per_sample,
      first.device_clock ? "device" : "host");
  if (rerun) s += fmt::format("; rerun {:.2f}x (p={:.2g})", rerun->ratio, rerun->test.p_greater);
  return s;
}

namespace {

// Seconds per run of `runs` back-to-back runs: on the device clock where the kernel has
// one, else the host's.
Result<double> sample(backends::Kernel& k, const oracle::Inputs& inputs, int runs,
                      const backends::RunOptions& ro, bool& device_clock) {
  auto host = k.time(inputs, runs, ro);
  if (!host) return host.error();
  std::vector<double> dev = k.device_times();
  device_clock = !dev.empty();
  const std::vector<double>& t = device_clock ? dev : *host;
  return std::accumulate(t.begin(), t.end(), 0.0) /
         static_cast<double>(std::max<size_t>(t.size(), 1));
}

}  // namespace

Result<LatencyRound> time_round(backends::Kernel& original, backends::Kernel& rewritten,
                                const oracle::Inputs& inputs, const LatencyOptions& options) {
  LatencyRound r;
  backends::RunOptions ro;
  ro.threads = options.threads;
  const int samples = std::max(options.samples, 9);
  // Warm-up (caches, page faults, lazy device state); its fastest run sizes the batches.
  bool clock = false;
  double fastest = 1e30;
  for (int i = 0; i < std::max(options.warmup, 1); ++i)
    for (backends::Kernel* k : {&original, &rewritten}) {
      auto t = sample(*k, inputs, 1, ro, clock);
      if (!t) return t.error();
      fastest = std::min(fastest, *t);
    }
  const double per_run = std::max(fastest, 1e-9);
  r.runs_per_sample =
      static_cast<int>(std::clamp(std::ceil(options.min_sample_seconds / per_run), 1.0, 65536.0));
  for (int i = 0; i < samples; ++i) {
    // ABBA: the original goes first in even samples, second in odd ones.
    backends::Kernel* order[2] = {&original, &rewritten};
    if (i % 2) std::swap(order[0], order[1]);
    for (backends::Kernel* k : order) {
      auto t = sample(*k, inputs, r.runs_per_sample, ro, r.device_clock);
      if (!t) return t.error();
      (k == &original ? r.original : r.rewritten).push_back(*t);
    }
  }
  const double mo = median(r.original), mr = median(r.rewritten);
  r.ratio = mo > 0 ? mr / mo : 1;
  r.test = mann_whitney_greater(r.original, r.rewritten);
  r.regressed = r.ratio >= options.min_slowdown && r.test.p_greater < options.alpha;
  return r;
}

Result<LatencyVerdict> detect_regression(backends::Kernel& original, backends::Kernel& rewritten,
                                         const oracle::Inputs& inputs,
                                         const LatencyOptions& options) {
  LatencyVerdict v;
  auto first = time_round(original, rewritten, inputs, options);
  if (!first) return first.error();
  v.first = std::move(*first);
  v.confirmed = v.first.regressed;
  if (v.first.regressed && options.confirm) {
    auto again = time_round(original, rewritten, inputs, options);
    if (!again) return again.error();
    v.rerun = std::move(*again);
    v.confirmed = v.rerun->regressed;
  }
  return v;
}

}  // namespace uopfuzz::check
