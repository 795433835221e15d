/** \file The CPU backend's ALU semantics: ir/scalar_eval.cpp written as LLVM IR at an
 * IRBuilder's insert point, and the register and memory forms of each dtype. lower.cpp
 * decides where code goes; this decides what an op's code is.
 */
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <optional>
#include <string>

#include "ir/result.h"
#include "ir/uop.h"

namespace uopfuzz::backends::cpu {

/// Unsigned arithmetic for `dt` (bool compares as unsigned too).
bool is_unsigned(ir::DType dt);

class AluEmitter {
 public:
  /// Code goes where `b` inserts; helpers and intrinsics are declared in `m`; the first op
  /// it has no code for becomes `error` (and a placeholder value keeps the caller going).
  AluEmitter(llvm::IRBuilder<>& b, llvm::Module& m, std::optional<Error>& error)
      : b_(b), m_(m), error_(error) {}

  /// Register form: bool i1, float16 double (exact half values), index i64.
  llvm::Type* repr(ir::DType dt);
  /// Memory form: bool one byte, float16 its 16 bits.
  llvm::Type* storage(ir::DType dt);
  llvm::Constant* constant(ir::DType dt, ir::Value v);
  /// One of the float16 helpers (lower.h) as a pure function of one argument.
  llvm::FunctionCallee helper(const char* name, llvm::Type* ret, llvm::Type* arg);

  /// `op` over operands `a` of dtype `in`, giving dtype `out`.
  llvm::Value* alu(ir::Op op, ir::DType in, ir::DType out, llvm::Value* const* a);
  /// An op this backend has no code for: records the error, returns a placeholder.
  llvm::Value* unsupported(ir::Op op, ir::DType dt);

 private:
  llvm::Value* half_round(llvm::Value* d);
  llvm::Value* f64(llvm::Value* v);
  llvm::Value* round_to(ir::DType dt, llvm::Value* d);
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* x);
  llvm::Value* float_op(ir::Op op, ir::DType dt, llvm::Value* const* a);
  llvm::Value* int_op(ir::Op op, ir::DType dt, llvm::Value* const* a);
  llvm::Value* cast(ir::DType in, ir::DType out, llvm::Value* x);
  llvm::Value* stored_i64(ir::DType dt, llvm::Value* q);
  llvm::Value* saturate(ir::DType dt, llvm::Value* v);
  llvm::Value* refuse(std::string why, ir::DType dt);
  llvm::Value* quantize(ir::DType out, llvm::Value* x);
  llvm::Value* dequantize(ir::DType in, ir::DType out, llvm::Value* q);
  llvm::Value* requantize(ir::DType in, ir::DType out, llvm::Value* q);
  llvm::Value* bitcast(ir::DType in, ir::DType out, llvm::Value* x);

  llvm::IRBuilder<>& b_;
  llvm::Module& m_;
  std::optional<Error>& error_;
};

}  // namespace uopfuzz::backends::cpu
