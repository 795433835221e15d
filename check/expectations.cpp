#include "check/expectations.h"

#include <fmt/format.h>

#include "backends/registry.h"

namespace uopfuzz::check {

ExpectationVerdict check_expectations(const ir::KernelHeader& h, const oracle::RunOutput& run,
                                      const OutputTolerance& tolerance) {
  ExpectationVerdict v;
  if (run.status == oracle::RunStatus::Ok)
    for (const ir::ExpectedOutput& e : h.outputs) {
      const ir::Buffer& got = run.outputs.at(e.slot);
      ir::Buffer want(got.dtype(), e.values.size());
      for (size_t i = 0; i < e.values.size(); ++i) want.set(i, e.values[i]);
      const Tolerance tol = tolerance.at(e.slot);
      for (size_t i = 0; i < e.values.size(); ++i)
        if (!agrees_at(want, i, got.get(i), tol))
          v.mismatches.push_back({e.slot, i, ir::format_value(got.dtype(), e.values[i]),
                                  ir::format_value(got.dtype(), got.get(i))});
    }
  const bool ub = run.status == oracle::RunStatus::Ub;
  v.pass = run.status != oracle::RunStatus::StepLimit && ub == (h.expect == ir::Expect::Ub) &&
           v.mismatches.empty();
  return v;
}

std::variant<CaseRun, CaseError> run_case(ir::Context& ctx, const ir::Kernel& kernel,
                                          const CaseRunOptions& o) {
  CaseRun c;
  c.inputs = oracle::make_inputs(kernel, o.seed, o.vars);
  oracle::RunOptions opts;
  opts.max_steps = o.max_steps;
  // The oracle runs first on every backend: others only run graphs it found free of UB.
  auto out = oracle::run(kernel.root, c.inputs, opts);
  if (!out) return CaseError{false, out.error().message};
  c.run = std::move(*out);
  const bool oracle_ok = c.run.status == oracle::RunStatus::Ok;
  OutputTolerance tolerance;  // the oracle's outputs are the header's, bit for bit
  if (o.backend != "oracle" && (oracle_ok || o.keep_listing)) {
    backends::Backend* be = backends::find_backend(o.backend);
    if (!be) return CaseError{false, fmt::format("unknown backend '{}'", o.backend)};
    backends::CompileOptions co;
    co.keep_listing = o.keep_listing;
    auto compiled = be->compile(kernel.root, co);
    if (!compiled)
      return CaseError{
          !backends::is_unsupported(compiled.error()),
          fmt::format("{} cannot compile the kernel: {}", o.backend, compiled.error().message)};
    c.listing = compiled.value()->listing();
    if (oracle_ok) {
      backends::RunOptions bro;
      bro.threads = o.threads;
      auto got = compiled.value()->run(c.inputs, bro);
      if (!got) return CaseError{false, got.error().message};
      c.run.outputs = std::move(got->outputs);
      // The expectations hold as the check compares: within what the backend declares.
      auto t = output_tolerance(ctx, *be, kernel.root, c.inputs);
      if (!t) return CaseError{true, t.error().message};
      tolerance = std::move(*t);
    } else {
      c.backend_skipped = true;
    }
  }
  c.verdict = check_expectations(kernel.header, c.run, tolerance);
  return c;
}

}  // namespace uopfuzz::check
