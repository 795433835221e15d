// libFuzzer target: bytes -> generator (ByteEntropy: the bytes are its choices, so coverage
// guidance steers what kernels it builds) -> simplify -> differential check on the oracle.
//
// Any finding of the check (mismatch, UB introduced, verifier failure, non-convergence,
// rewrite error) prints the kernel and the details to stderr and aborts, so libFuzzer
// records the input as a crash. The generated kernel is checked with its own @var values
// (the generator vouches for those) on two input seeds, with a step cap per oracle run:
// a seed on which a side hits the cap is skipped, never reported.
//
// UOPFUZZ_INJECT_BUG=NAME[,NAME...] switches planted bugs on (simplifier/bugs.def), to see
// the target find one: UOPFUZZ_INJECT_BUG=split-no-divisibility fuzz_simplify
// corpus/fuzz/fuzz_simplify

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "check/differential.h"
#include "gen/entropy.h"
#include "gen/generator.h"
#include "gen/policy.h"
#include "ir/printer.h"
#include "simplifier/bugs.h"

namespace {

using namespace uopfuzz;

// The generator reads a few hundred bytes for a large kernel; more only pads the input.
constexpr size_t kMaxInput = 4096;

check::CheckOptions make_options() {
  check::CheckOptions o;
  o.seeds = 2;
  o.max_steps = 1'000'000;
  if (const char* env = std::getenv("UOPFUZZ_INJECT_BUG"); env != nullptr && *env != '\0') {
    std::string_view list(env);
    while (!list.empty()) {
      const size_t comma = list.find(',');
      const std::string_view name = list.substr(0, comma);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      if (name.empty()) continue;
      auto bug = simplifier::parse_bug(name);
      if (!bug) {
        std::fprintf(stderr, "fuzz_simplify: UOPFUZZ_INJECT_BUG: unknown planted bug '%.*s'\n",
                     static_cast<int>(name.size()), name.data());
        std::exit(2);
      }
      o.simplify.bugs.enable(*bug);
      std::fprintf(stderr, "fuzz_simplify: planted bug %.*s switched on\n",
                   static_cast<int>(name.size()), name.data());
    }
  }
  return o;
}

const check::CheckOptions& options() {
  static const check::CheckOptions o = make_options();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)options();  // report UOPFUZZ_INJECT_BUG once, before the first input
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  ir::Context ctx;
  gen::ByteEntropy entropy(data, size);
  const gen::GenResult g = gen::generate(ctx, gen::GenPolicy{}, entropy);
  if (!g.stats.oracle_error.empty()) {
    std::fprintf(stderr, "fuzz_simplify: generator bug: the oracle cannot run the kernel: %s\n%s",
                 g.stats.oracle_error.c_str(), ir::print_kernel(g.kernel).c_str());
    std::abort();
  }
  check::CheckOptions o = options();
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
