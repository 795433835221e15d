/** \file The real-size benchmark suite (`uopfuzz bench --suite real`): kernels and tensor
 * programs at the sizes real workloads have, each stating the bytes it must move and the
 * operations it must do, so that a measured time becomes GB/s, GOP/s and a fraction of the
 * device's roofline (bench/roofline.h). The rows are in bench/suite/cases.def; this file
 * writes each case's .uop text for a size.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace uopfuzz::bench::suite {

enum class CaseId : uint8_t {
#define SUITE_CASE(id, name, form, quantum, small, full, bytes, ops, what) id,
#include "bench/suite/cases.def"
#undef SUITE_CASE
};

/// Kernel: the text is a kernel (a SINK); Program: a tensor program (a REALIZE) that the
/// lowering turns into kernels.
enum class Form : uint8_t { Kernel, Program };

/// The sizes a run sweeps: `small` for CI (seconds), `full` for the nightly (10^6 to 10^8
/// elements), `tiny` the first two sizes of `small` (tests).
enum class Preset : uint8_t { Tiny, Small, Full };
std::optional<Preset> parse_preset(std::string_view name);
std::string_view preset_name(Preset preset);

struct SuiteCase {
  CaseId id;
  std::string_view name;
  Form form;
  int64_t quantum;  ///< every size is a multiple of it
  std::vector<int64_t> small, full;
  std::string_view what;

  std::vector<int64_t> sizes(Preset preset) const;
  /// The bytes the case must move at size n: inputs read once, outputs written once.
  int64_t bytes(int64_t n) const;
  /// The arithmetic operations it must do at size n.
  int64_t ops(int64_t n) const;
  /// The case's .uop text at size n (a multiple of quantum, at least quantum).
  std::string text(int64_t n) const;
};

/// Every case, in cases.def order.
std::span<const SuiteCase> cases();
const SuiteCase* find_case(std::string_view name);

/// The roofline's yardsticks, as kernels of the backend they measure: a float32 copy of n
/// elements (8n bytes, no arithmetic), and n elements each running kFmaChains independent
/// chains of kFmaSteps multiply-adds (ops: fma_ops(n)).
inline constexpr int kFmaChains = 8, kFmaSteps = 32;
std::string copy_kernel_text(int64_t n);
std::string fma_kernel_text(int64_t n);
int64_t fma_ops(int64_t n);

}  // namespace uopfuzz::bench::suite
