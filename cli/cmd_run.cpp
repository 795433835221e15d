// uopfuzz run FILE: a kernel's outputs on one backend, and its header's expectations; a tensor
// program's outputs from the tensor oracle, or from its lowered Program on one backend.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "check/expectations.h"
#include "cli/command.h"
#include "cli/kernel_file.h"
#include "cli/lowering_flags.h"
#include "cli/run_output.h"
#include "cli/shared_flags.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"

namespace uopfuzz::cli {
namespace {

/// The header's @var values overridden by --var NAME=V, or nullopt (and a printed error).
std::optional<std::map<std::string, int64_t>> var_values(const ir::KernelHeader& h,
                                                         const std::vector<std::string>& flags) {
  std::map<std::string, int64_t> vars(h.vars.begin(), h.vars.end());
  for (const std::string& kv : flags) {
    size_t eq = kv.find('=');
    int64_t v = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      const char* b = kv.data() + eq + 1;
      auto [p, ec] = std::from_chars(b, kv.data() + kv.size(), v);
      ok = ec == std::errc() && p == kv.data() + kv.size();
    }
    if (!ok) {
      fmt::print(stderr, "error: --var expects NAME=INTEGER, got '{}'\n", kv);
      return std::nullopt;
    }
    vars[kv.substr(0, eq)] = v;
  }
  return vars;
}

/// How far the backend's float outputs of the Program may be from the tensor oracle's: the
/// most any of its kernels is allowed.
check::OutputTolerance program_tolerance(backends::Backend& backend, const ir::Program& program) {
  int ulps = 0;
  for (const ir::ProgramKernel& kernel : program.kernels)
    ulps = std::max(ulps, backend.tolerance_ulps(kernel.root));
  check::OutputTolerance t;
  t.declared = check::Tolerance(ulps, !backend.caps().signed_zeros);
  return t;
}

/// A tensor program: the tensor oracle's outputs, or, with --backend, the outputs of its
/// lowered and simplified Program on that backend (where the tensor oracle finds no UB).
int run_tensor_program(const RunFlags& f, const LoadedKernel& k, uint64_t seed,
                       const std::map<std::string, int64_t>& vars) {
  const ir::Kernel& program = k.parsed.kernel;
  auto recorded = fuzz::read_corpus_header(program.header, k.text);
  if (!recorded) {
    fmt::print(stderr, "{}:{}: error: {}\n", f.file, recorded.error().loc.line,
               recorded.error().message);
    return kExitBadInput;
  }
  const schedule::LowerOptions lower_opts = lower_options({}, f.lowering, *recorded);
  // An example's @kernels holds on every run, the tensor oracle's included.
  bool kernels_as_expected = true;
  if (recorded->kernels) {
    auto lowered = schedule::lower(*k.ctx, program.root, lower_opts);
    if (!lowered) {
      fmt::print(stderr, "{}: error: cannot lower the tensor program: {}\n", f.file,
                 lowered.error().message);
      return backends::is_unsupported(lowered.error()) ? kExitBadInput : kExitFinding;
    }
    if (static_cast<int64_t>(lowered->kernels.size()) != *recorded->kernels) {
      kernels_as_expected = false;
      fmt::print(stderr, "{}: error: expected {} kernels, the lowering gives {}\n", f.file,
                 *recorded->kernels, lowered->kernels.size());
    }
  }
  check::CaseRun c;
  if (f.backend.empty() && f.simplifier.external()) {
    auto under_test = simplifier_under_test(f.simplifier);
    if (!under_test) return kExitBadInput;
    if (*under_test && (*under_test)->capabilities().run)
      return run_on_devices(f, k, seed, vars, **under_test);
  }
  c.inputs = ir::make_inputs(program, seed, vars);
  auto reference = oracle::eval_tensor_program(program.root, c.inputs);
  if (!reference) {
    fmt::print(stderr, "{}: error: the tensor oracle cannot run it: {}\n", f.file,
               reference.error().message);
    return kExitBadInput;
  }
  c.run = std::move(*reference);
  int failed_kernel = -1;
  bool converged = true;
  check::OutputTolerance tolerance;  // the tensor oracle's outputs are the header's, bit for bit
  if (!f.backend.empty() && c.run.status != oracle::RunStatus::Ok) {
    c.backend_skipped = true;
    fmt::print(stderr, "{}: note: not lowered and run on {}: the tensor oracle found it {}\n",
               f.file, f.backend,
               c.run.status == oracle::RunStatus::Ub ? "has undefined behaviour"
                                                     : "runs past the step limit");
  } else if (!f.backend.empty()) {
    auto lowered = schedule::lower(*k.ctx, program.root, lower_opts);
    if (!lowered) {
      fmt::print(stderr, "{}: error: cannot lower the tensor program: {}\n", f.file,
                 lowered.error().message);
      return backends::is_unsupported(lowered.error()) ? kExitBadInput : kExitFinding;
    }
    auto under_test = simplifier_under_test(f.simplifier);
    if (!under_test) return kExitBadInput;
    schedule::SimplifiedProgram simplified;
    if (*under_test) {
      simplified.program = *lowered;
      for (size_t i = 0; i < simplified.program.kernels.size(); ++i) {
        ir::ProgramKernel& pk = simplified.program.kernels[i];
        sut::Outcome o = (*under_test)->simplify(*k.ctx, pk.root, {});
        if (o.failure) {
          fmt::print(stderr, "{}: error: the simplifier under test ({}) on kernel {}: {}: {}\n",
                     f.file, f.simplifier.spec, i, sut::failure_kind_name(o.failure->kind),
                     o.failure->reason);
          return o.failure->kind == sut::FailureKind::Unsupported ? kExitBadInput : kExitFinding;
        }
        pk.root = o.result.root;
        simplified.converged = simplified.converged && o.result.converged;
      }
    } else {
      simplified = schedule::simplify_program(*k.ctx, *lowered);
    }
    converged = simplified.converged;
    if (!converged)
      fmt::print(stderr, "{}: error: the simplifier did not converge on a kernel\n", f.file);
    if (f.dump_ir) fmt::print("{}", ir::print_program(simplified.program));
    backends::Backend& backend = *backends::find_backend(f.backend);
    backends::RunOptions ro;
    ro.threads = f.threads;
    ro.max_steps = f.max_steps;
    auto ran = backends::run_program(backend, simplified.program, c.inputs, ro);
    if (!ran) {
      fmt::print(stderr, "{}: error: {} cannot run the lowered program: {}\n", f.file, f.backend,
                 ran.error().message);
      return backends::is_unsupported(ran.error()) ? kExitBadInput : kExitFinding;
    }
    c.run.status = ran->status;
    c.run.outputs = std::move(ran->outputs);
    c.run.ub = std::move(ran->ub);
    failed_kernel = ran->failed_kernel;
    tolerance = program_tolerance(backend, simplified.program);
  }
  c.verdict = check::check_expectations(program.header, c.run, tolerance);
  print_run(f, k, seed, c, failed_kernel);
  return c.verdict.pass && converged && kernels_as_expected ? kExitOk : kExitFinding;
}

int run_run(const RunFlags& f) {
  if (!f.backend.empty() && !valid_backends({f.backend})) return kExitBadInput;
  if (f.threads < 1) {
    fmt::print(stderr, "error: --threads must be at least 1\n");
    return kExitBadInput;
  }
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  auto k = load_kernel(f.file);
  if (!k) return kExitBadInput;
  const ir::Kernel& kernel = k->parsed.kernel;
  auto vars = var_values(kernel.header, f.vars);
  if (!vars) return kExitBadInput;
  if (ir::is_tensor_program(kernel.root))
    return run_tensor_program(f, *k, f.seed.value_or(kernel.header.seed.value_or(0)), *vars);
  if (f.backend.empty() && f.simplifier.external()) {  // a kernel at a `pipeline` stage
    auto under_test = simplifier_under_test(f.simplifier);
    if (!under_test) return kExitBadInput;
    if (*under_test && (*under_test)->capabilities().run && (*under_test)->stage() == "pipeline")
      return run_on_devices(f, *k, f.seed.value_or(kernel.header.seed.value_or(0)), *vars,
                            **under_test);
  }
  check::CaseRunOptions o;
  o.backend = f.backend.empty() ? "oracle" : f.backend;
  o.seed = f.seed.value_or(kernel.header.seed.value_or(0));
  o.vars = std::move(*vars);
  o.max_steps = f.max_steps;
  o.threads = f.threads;
  o.keep_listing = f.dump_ir;
  auto ran = check::run_case(*k->ctx, kernel, o);
  if (auto* e = std::get_if<check::CaseError>(&ran)) {
    fmt::print(stderr, "{}: error: {}\n", f.file, e->message);
    return e->finding ? kExitFinding : kExitBadInput;
  }
  const check::CaseRun& c = std::get<check::CaseRun>(ran);
  if (c.backend_skipped)
    fmt::print(stderr, "{}: note: not run on {}: the oracle found the kernel {}\n", f.file,
               f.backend,
               c.run.status == oracle::RunStatus::Ub ? "has undefined behaviour"
                                                     : "runs past the step limit");
  if (f.dump_ir && !c.listing.empty()) fmt::print("{}", c.listing);
  print_run(f, *k, o.seed, c);
  return c.verdict.pass ? kExitOk : kExitFinding;
}

}  // namespace

Action add_run(CLI::App& cmd, Invocation& invocation) {
  auto f = std::make_shared<RunFlags>();
  cmd.add_option("FILE", f->file, "the .uop file (a kernel or a tensor program)")->required();
  cmd.add_option("--backend", f->backend,
                 "backend to run on (available: " + backend_list() +
                     "; default: oracle). A tensor program runs on the tensor oracle unless a "
                     "backend is given: then it is lowered, simplified and run on it. Without "
                     "--backend, a --simplifier that runs whole graphs (tinygrad) runs a tensor "
                     "program (a kernel at --tinygrad-stage pipeline) on each of its devices");
  cmd.add_flag("--dump-ir", f->dump_ir,
               "print the backend's listing (cpu: LLVM IR as lowered and as optimized; vulkan: "
               "GLSL and SPIR-V); a tensor program with --backend: the Program it ran");
  cmd.add_option("--threads", f->threads, "threads a compiled backend may use")
      ->capture_default_str();
  cmd.add_option("--seed", f->seed, "input-fill seed (default: the file's @seed, else 0)");
  cmd.add_option("--var", f->vars,
                 "VAR value NAME=V (repeatable; default: the file's @var, else seed-derived)");
  cmd.add_flag("--json", f->json, "print the result as JSON (schema in docs/cli.md)");
  cmd.add_option("--max-steps", f->max_steps, "stop after this many interpreter steps")
      ->capture_default_str();
  add_simplifier_flags(cmd, f->simplifier);
  add_lowering_option_flags(cmd, f->lowering, "the file's");
  add_device_flag(cmd, invocation.device);
  cmd.footer(
      "A tensor program whose header says @kernels N fails (exit 1) when its lowering, at the "
      "file's lowering options, gives another number of kernels; on every backend and on the "
      "tensor oracle alone.");
  return [f] { return run_run(*f); };
}

}  // namespace uopfuzz::cli
