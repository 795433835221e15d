// uopfuzz simplify FILE: the rewritten graph (or the planted bugs, or the rule names); a tensor
// program's lowered Program with each kernel rewritten.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/backend.h"
#include "cli/command.h"
#include "cli/kernel_file.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "ir/printer.h"
#include "ir/program.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "schedule/lower.h"
#include "simplifier/unfireable.h"

namespace uopfuzz::cli {
namespace {

struct SimplifyCommandFlags {
  std::string file;
  SimplifyFlags simplify;
  bool stats = false;
  bool no_simplify = false;
  bool list_bugs = false;
  bool list_rules = false;
  bool dump_bufferize = false;
  std::vector<std::string> lowering_bugs;
  LoweringOptionFlags lowering;
};

int list_bugs() {
  for (const auto& b : simplifier::all_bugs())
    fmt::print("{:<28} {:<8} {}\n{:<38}noticed by: {}\n", b.name, simplifier::bug_kind_name(b.kind),
               b.what, "", b.noticed_by);
  return kExitOk;
}

int list_rules() {
  // The name first (scripts read the first word); a rule no generated program can make fire
  // says why beside it, as a campaign's coverage summary does.
  const auto& unfireable = simplifier::unfireable_rules();
  const auto& recording = simplifier::recording_rules();
  for (const auto& n : simplifier::all_rule_names()) {
    if (auto it = unfireable.find(n); it != unfireable.end())
      fmt::print("{:<24} never fires: {}\n", n, it->second);
    else if (auto rec = recording.find(n); rec != recording.end())
      fmt::print("{:<24} records, never rewrites: {}\n", n, rec->second);
    else
      fmt::print("{}\n", n);
  }
  return kExitOk;
}

/// Prints why the simplifier under test gave no rewrite (of kernel `which`, when it is one of
/// a Program's); the exit status: 2 when it declines the kernel, 1 for a crash, hang or
/// protocol failure (each a finding).
int report_failure(const SimplifyCommandFlags& f, const sut::Failure& failure,
                   const std::string& which = "") {
  const std::string on = which.empty() ? "" : " (" + which + ")";
  if (failure.kind == sut::FailureKind::Unsupported) {
    fmt::print("unsupported: {}{}\n", failure.reason, on);
    return kExitBadInput;
  }
  fmt::print(stderr, "{}: error: the simplifier under test ({}){}: {}: {}{}\n", f.file,
             f.simplify.simplifier.spec, on, sut::failure_kind_name(failure.kind), failure.reason,
             failure.where.empty() ? "" : " at " + failure.where);
  if (!failure.log.empty()) fmt::print(stderr, "{}\n", failure.log);
  return kExitFinding;
}

/// A tensor program: lowered to a Program, each kernel rewritten (unless --no-simplify), printed.
int simplify_tensor_program(const SimplifyCommandFlags& f, const LoadedKernel& k,
                            const simplifier::SimplifyOptions& opts, sut::Simplifier* under_test) {
  auto recorded = fuzz::read_corpus_header(k.parsed.kernel.header, k.text);
  if (!recorded) {
    fmt::print(stderr, "{}:{}: error: {}\n", f.file, recorded.error().loc.line,
               recorded.error().message);
    return kExitBadInput;
  }
  auto bugs = lowering_bugs(f.lowering_bugs);
  if (!bugs) return kExitBadInput;
  schedule::LowerOptions lo;
  lo.bugs = *bugs;
  lo = lower_options(lo, f.lowering, *recorded);
  schedule::LowerReport report;
  auto lowered = schedule::lower(*k.ctx, k.parsed.kernel.root, lo, &report);
  // Printed before a failure too: the graph shows what a wrong lowering did.
  if (f.dump_bufferize && report.graph)
    fmt::print("# the BUFFERIZE graph after the buffer rules\n{}", ir::print_graph(report.graph));
  if (!lowered) {
    fmt::print(stderr, "{}: error: cannot lower the tensor program: {}\n", f.file,
               lowered.error().message);
    return backends::is_unsupported(lowered.error()) ? kExitBadInput : kExitFinding;
  }
  schedule::SimplifiedProgram r;
  r.program = *lowered;
  if (!f.no_simplify && !under_test) r = schedule::simplify_program(*k.ctx, *lowered, opts);
  if (!f.no_simplify && under_test)
    for (size_t i = 0; i < r.program.kernels.size(); ++i) {
      sut::Outcome o = under_test->simplify(*k.ctx, r.program.kernels[i].root, opts);
      if (o.failure) return report_failure(f, *o.failure, fmt::format("kernel {}", i));
      r.program.kernels[i].root = o.result.root;
      r.converged = r.converged && o.result.converged;
      for (const auto& [name, n] : o.result.hits) r.hits[name] += n;
    }
  fmt::print("{}", ir::print_program(r.program));
  if (f.stats) {
    std::map<ir::ProgramBuffer::Role, int> roles;
    for (const auto& b : r.program.buffers) ++roles[b.role];
    fmt::print("# kernels {}\n# buffers {} (inputs {}, outputs {}, intermediates {})\n",
               r.program.kernels.size(), r.program.buffers.size(),
               roles[ir::ProgramBuffer::Role::Input], roles[ir::ProgramBuffer::Role::Output],
               roles[ir::ProgramBuffer::Role::Intermediate]);
    fmt::print("# lowering: pcontig {}, split-reduce-threshold {}{}\n", lo.pcontig,
               lo.split_reduce_threshold, report.converged ? "" : " (buffer rules NOT converged)");
    for (const auto& [name, n] : report.hits) fmt::print("# tensor-hit {} {}\n", name, n);
    for (const schedule::SqueezeRecord& s : report.squeezed)
      fmt::print("# squeezed REDUCE_AXIS {} {} axes=[{}] removed=[{}] -> axes=[{}]\n",
                 ir::op_name(s.reduce.arg<ir::ReduceAxisArg>().op),
                 ir::shape_text(s.reduce.src(0).shape()), fmt::join(s.axes, ","),
                 fmt::join(s.removed, ","), fmt::join(s.remapped, ","));
    for (const auto& [name, n] : r.hits) fmt::print("# hit {} {}\n", name, n);
  }
  bool ok = r.converged;
  for (size_t i = 0; i < r.program.kernels.size(); ++i)
    for (const auto& e : ir::verify(r.program.kernels[i].root)) {
      ok = false;
      fmt::print(stderr, "{}: error: kernel {} does not verify: [{}] {} at {}\n", f.file, i,
                 ir::verify_rule_name(e.rule), e.message, ir::describe(e.node));
    }
  if (!r.converged)
    fmt::print(stderr, "{}: error: the simplifier did not converge on a kernel\n", f.file);
  return ok ? kExitOk : kExitFinding;
}

int run_simplify(const SimplifyCommandFlags& f) {
  if (f.list_bugs) return list_bugs();
  if (f.list_rules) return list_rules();
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  if (f.file.empty()) {
    fmt::print(stderr, "error: simplify needs a FILE (or --list-bugs / --list-rules)\n");
    return kExitBadInput;
  }
  auto opts = simplify_options(f.simplify);
  if (!opts) return kExitBadInput;
  auto under_test = simplifier_under_test(f.simplify.simplifier, *opts);
  if (!under_test) return kExitBadInput;
  auto k = load_kernel(f.file);
  if (!k) return kExitBadInput;
  if (ir::is_tensor_program(k->parsed.kernel.root))
    return simplify_tensor_program(f, *k, *opts, under_test->get());
  ir::Kernel out = k->parsed.kernel;
  simplifier::SimplifyResult r;
  r.root = out.root;
  if (!f.no_simplify) {
    sut::Outcome o = sut::simplify_with(under_test->get(), *k->ctx, out.root, *opts);
    if (o.failure) return report_failure(f, *o.failure);
    r = std::move(o.result);
  }
  out.root = r.root;
  ir::fit_given_inputs(out);  // an input the rewrite no longer reads loses its @input line
  auto errors = ir::verify(out.root);
  if (errors.empty()) {
    fmt::print("{}", ir::print_kernel(out));
  } else {
    // A broken graph still prints; its header may not apply.
    fmt::print("{}", ir::print_graph(out.root));
  }
  if (f.stats) {
    for (const auto& s : r.stages)
      fmt::print("# stage {}: {} rewrites{}\n", s.name, s.rewrites,
                 s.converged ? "" : " (NOT converged)");
    for (const auto& [name, n] : r.hits) fmt::print("# hit {} {}\n", name, n);
  }
  for (const auto& e : errors)
    fmt::print(stderr, "{}: error: the rewrite does not verify: [{}] {} at {}\n", f.file,
               ir::verify_rule_name(e.rule), e.message, ir::describe(e.node));
  if (!r.converged) fmt::print(stderr, "{}: error: the simplifier did not converge\n", f.file);
  return errors.empty() && r.converged ? kExitOk : kExitFinding;
}

}  // namespace

Action add_simplify(CLI::App& cmd, Invocation&) {
  auto f = std::make_shared<SimplifyCommandFlags>();
  cmd.add_option("FILE", f->file,
                 "the .uop file; a tensor program is lowered to a Program (its buffer table "
                 "and kernels) and each kernel rewritten");
  add_simplify_flags(cmd, f->simplify);
  cmd.add_flag("--no-simplify", f->no_simplify,
               "rewrite nothing: a tensor program's Program as lowering leaves it");
  cmd.add_flag("--stats", f->stats,
               "append the stages' rewrite counts and the rule hit counts as # comments (a "
               "tensor program: the counts of kernels and buffers, the lowering options, the "
               "tensor-stage rule hits as '# tensor-hit RULE N' and the kernel rule hits)");
  cmd.add_flag("--dump-bufferize", f->dump_bufferize,
               "a tensor program: first print the BUFFERIZE graph the buffer rules leave (which "
               "buffers remain), as # comment and .uop graph text");
  add_lowering_bug_flag(cmd, f->lowering_bugs);
  add_lowering_option_flags(cmd, f->lowering, "the file's");
  cmd.add_flag("--list-bugs", f->list_bugs, "list the planted bugs and exit");
  cmd.add_flag("--list-rules", f->list_rules,
               "list the rule names (and why, beside those that never fire) and exit");
  cmd.footer(
      "Exit status: 0 the rewrite verifies and converged; 1 it does not, or the simplifier under "
      "test crashed, hung or broke the protocol; 2 bad input, or the simplifier under test "
      "declines the kernel (it prints 'unsupported: REASON').");
  return [f] { return run_simplify(*f); };
}

}  // namespace uopfuzz::cli
