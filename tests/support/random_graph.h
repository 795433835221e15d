/** \file A small random builder of well-formed kernels (graph + header) for IR property tests. */
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::ir::randgraph {

/// Builds kernels that pass ir::verify by construction: every dtype rule is respected
/// when a node is made, ranges are closed by the END or REDUCE that introduced them,
/// inputs are only loaded and outputs only stored. Values deliberately include the
/// awkward ones (-0, inf, nan, denormals, float16 rounding, uint64 max, int64 min);
/// whether running the kernel is undefined is not this builder's concern.
class RandomKernelBuilder {
 public:
  RandomKernelBuilder(Context& ctx, uint64_t seed) : ctx_(ctx), rng_(seed) {}

  Kernel build(int serial = 0);

  static const std::vector<DType>& buffer_dtypes();

  /// A canonical value of `dt`, biased to edge cases.
  Value special_value(DType dt);

 private:
  uint64_t below(uint64_t n) { return rng_() % n; }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

  UOp param(DType dt, int slot, int64_t size, bool out);
  void make_params();
  void make_vars();

  /// A fresh RANGE (unique axis id, so it never interns with another) whose end
  /// depends on no range.
  UOp fresh_range(bool reduce);

  UOp constant(DType dt) { return ctx_.const_value(dt, special_value(dt)); }

  UOp load(UOp buf, int depth, const std::vector<UOp>& scope);
  UOp leaf(DType dt, int depth, const std::vector<UOp>& scope);

  /// A value of dtype `dt` using only the ranges in `scope`.
  UOp value(DType dt, int depth, const std::vector<UOp>& scope);

  /// STORE into `out` inside a random loop nest, closed by one END or by nested ENDs.
  UOp store_into(UOp out);
  std::string text_value();
  KernelHeader header(int serial);

  Context& ctx_;
  std::mt19937_64 rng_;
  std::vector<UOp> inputs_, outputs_, vars_;
  int32_t next_axis_ = 0;
};

}  // namespace uopfuzz::ir::randgraph
