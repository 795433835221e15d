/** \file The Vulkan backend's ALU semantics: ir/scalar_eval.cpp written as GLSL expressions,
 * with the helper functions they call, and the GLSL names and literals of each dtype.
 * render.cpp decides where code goes; this decides what an op's code is (render.h states
 * the exactness rules it keeps).
 */
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/vulkan/render.h"
#include "ir/result.h"
#include "ir/uop.h"
#include "ir/value.h"

namespace uopfuzz::backends::vulkan {

/// GLSL's name for a register of dtype `dt`.
std::string gtype(ir::DType dt);
/// ...and of a buffer element (bool: one byte).
std::string stype(ir::DType dt);
/// `v` of dtype `dt` as a GLSL expression that reads back exactly.
std::string literal(ir::DType dt, ir::Value v);

class GlslAlu {
 public:
  /// The features the expressions need are added to `needs`; the first op it has no code
  /// for becomes `error` (and a placeholder keeps the caller going).
  GlslAlu(Needs& needs, std::optional<Error>& error) : needs_(needs), error_(error) {}

  /// `op` over operands `a` of dtype `in`, giving dtype `out`.
  std::string alu(ir::Op op, ir::DType in, ir::DType out, const std::string* a);
  /// An op this backend has no code for: records the error, returns a placeholder.
  std::string unsupported(ir::Op op, ir::DType dt);
  /// The helper functions the expressions so far call, each once, in first-use order.
  const std::vector<std::string>& helpers() const { return helpers_; }

 private:
  std::string helper(const std::string& name, const std::string& text);
  std::string bool_op(ir::Op op, const std::string* a);
  bool via_double(ir::DType dt) const;
  std::string float_op(ir::Op op, ir::DType dt, const std::string* a);
  static std::string lt(ir::DType dt, const std::string& a, const std::string& b);
  static std::string eq(ir::DType dt, const std::string& a, const std::string& b);
  std::string int_op(ir::Op op, ir::DType dt, const std::string* a);
  static int significand_bits(ir::DType f);
  std::string cast(ir::DType in, ir::DType out, const std::string& x);
  std::string widen_stored(ir::DType q, const std::string& x);
  static std::string int64_literal(int64_t v);
  static std::string double_literal(double v);
  std::string quantize(ir::DType out, const std::string& x);
  std::string dequantize(ir::DType in, ir::DType out, const std::string& x);
  std::string requantize(ir::DType in, ir::DType out, const std::string& x);
  std::string bitcast(ir::DType in, ir::DType out, const std::string& x);

  Needs& needs_;
  std::optional<Error>& error_;
  std::set<std::string> helper_names_;
  std::vector<std::string> helpers_;
};

}  // namespace uopfuzz::backends::vulkan
