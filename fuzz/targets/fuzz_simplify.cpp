// libFuzzer target: bytes -> generator (ByteEntropy: the bytes are its choices, so coverage
// guidance steers what kernels it builds) -> simplify -> differential check on the oracle.
//
// Any finding of the check (mismatch, UB introduced, verifier failure, non-convergence,
// rewrite error) prints the kernel and the details to stderr and aborts, so libFuzzer
// records the input as a crash. The generated kernel is checked with its own @var values
// (the generator vouches for those) on two input seeds, with a step cap per oracle run:
// a seed on which a side hits the cap is skipped, never reported.
//
// An input whose first byte is 'T' is a tensor program instead (the rest of the bytes are the
// tensor generator's choices): lowered, simplified kernel by kernel and compared with the
// tensor oracle (check/program_check.h); one the pipeline cannot take yet is skipped.
// Other inputs are kernels from all their bytes, as they always were.
//
// UOPFUZZ_INJECT_BUG=NAME[,NAME...] switches planted bugs on (simplifier/bugs.def), to see
// the target find one: UOPFUZZ_INJECT_BUG=split-no-divisibility fuzz_simplify
// corpus/fuzz/fuzz_simplify; UOPFUZZ_INJECT_LOWERING_BUG=NAME[,NAME...] does the same for
// planted lowering bugs (schedule/lowering_bugs.def).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "check/differential.h"
#include "check/program_check.h"
#include "gen/entropy.h"
#include "gen/generator.h"
#include "gen/policy.h"
#include "gen/tensor_gen.h"
#include "ir/printer.h"
#include "schedule/lowering_bugs.h"
#include "simplifier/bugs.h"

namespace {

using namespace uopfuzz;

// The generator reads a few hundred bytes for a large kernel; more only pads the input.
constexpr size_t kMaxInput = 4096;

// The first byte that makes an input a tensor program.
constexpr uint8_t kTensorMarker = 'T';

// Calls `enable` on each name of the comma-separated list in environment variable `var`;
// an unknown name (enable returns false) ends the process.
template <typename Enable>
void for_each_listed(const char* var, Enable enable) {
  const char* env = std::getenv(var);
  if (env == nullptr) return;
  std::string_view list(env);
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    if (!enable(name)) {
      std::fprintf(stderr, "fuzz_simplify: %s: unknown planted bug '%.*s'\n", var,
                   static_cast<int>(name.size()), name.data());
      std::exit(2);
    }
    std::fprintf(stderr, "fuzz_simplify: planted bug %.*s switched on\n",
                 static_cast<int>(name.size()), name.data());
  }
}

check::ProgramCheckOptions make_options() {
  check::ProgramCheckOptions o;
  o.check.seeds = 2;
  o.check.max_steps = 1'000'000;
  for_each_listed("UOPFUZZ_INJECT_BUG", [&](std::string_view name) {
    auto bug = simplifier::parse_bug(name);
    if (bug) o.check.simplify.bugs.enable(*bug);
    return bug.has_value();
  });
  for_each_listed("UOPFUZZ_INJECT_LOWERING_BUG", [&](std::string_view name) {
    auto bug = schedule::parse_lowering_bug(name);
    if (bug) o.lower.bugs.insert(*bug);
    return bug.has_value();
  });
  return o;
}

const check::ProgramCheckOptions& options() {
  static const check::ProgramCheckOptions o = make_options();
  return o;
}

int check_tensor_program(const uint8_t* data, size_t size) {
  ir::Context ctx;
  gen::ByteEntropy entropy(data, size);
  const gen::TensorGenResult g = gen::generate_tensor_program(ctx, gen::GenPolicy{}, entropy);
  if (!g.program.root) return 0;  // no program made (the generator not available)
  check::ProgramCheckOptions o = options();
  for (const auto& [name, v] : g.program.header.vars) o.check.vars.emplace(name, v);
  const check::ProgramCheckResult r = check::check_program(ctx, g.program, o);
  if (r.unsupported || r.kind == check::FindingKind::None) return 0;
  const std::string_view kind = check::finding_kind_name(r.kind);
  std::fprintf(stderr,
               "fuzz_simplify: FINDING %.*s in a tensor program: %s\n"
               "--- program (save as .uop; replay with: uopfuzz check FILE --seeds 2) ---\n%s",
               static_cast<int>(kind.size()), kind.data(), r.details.c_str(),
               ir::print_kernel(g.program).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)options();  // report UOPFUZZ_INJECT_BUG once, before the first input
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  if (size > 0 && data[0] == kTensorMarker) return check_tensor_program(data + 1, size - 1);
  ir::Context ctx;
  gen::ByteEntropy entropy(data, size);
  const gen::GenResult g = gen::generate(ctx, gen::GenPolicy{}, entropy);
  if (!g.stats.oracle_error.empty()) {
    std::fprintf(stderr, "fuzz_simplify: generator bug: the oracle cannot run the kernel: %s\n%s",
                 g.stats.oracle_error.c_str(), ir::print_kernel(g.kernel).c_str());
    std::abort();
  }
  check::CheckOptions o = options().check;
  for (const auto& [name, v] : g.kernel.header.vars) o.vars.emplace(name, v);
  const check::CheckResult r = check::check_kernel(ctx, g.kernel, o);
  if (r.kind == check::FindingKind::None) return 0;

  std::string rules;
  for (const auto& [name, n] : r.simplified.hits)
    rules += (rules.empty() ? "" : ", ") + name + " (" + std::to_string(n) + ")";
  const std::string_view kind = check::finding_kind_name(r.kind);
  std::fprintf(stderr,
               "fuzz_simplify: FINDING %.*s: %s\n  rules that fired: %s\n"
               "--- kernel (save as .uop; replay with: uopfuzz check FILE --seeds 2) ---\n%s"
               "--- rewrite ---\n%s",
               static_cast<int>(kind.size()), kind.data(), r.details.c_str(),
               rules.empty() ? "none" : rules.c_str(), ir::print_kernel(g.kernel).c_str(),
               r.simplified.root ? ir::print_graph(r.simplified.root).c_str() : "(none)\n");
  std::abort();
}
