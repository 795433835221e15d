// uopfuzz simplify FILE: the rewritten graph (or the planted bugs, or the rule names).

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/kernel_file.h"
#include "cli/shared_flags.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/verify.h"

namespace uopfuzz::cli {
namespace {

struct SimplifyCommandFlags {
  std::string file;
  SimplifyFlags simplify;
  bool stats = false;
  bool list_bugs = false;
  bool list_rules = false;
};

int list_bugs() {
  for (const auto& b : simplifier::all_bugs())
    fmt::print("{:<28} {:<8} {}\n{:<38}noticed by: {}\n", b.name, simplifier::bug_kind_name(b.kind),
               b.what, "", b.noticed_by);
  return kExitOk;
}

int list_rules() {
  for (const auto& n : simplifier::all_rule_names()) fmt::print("{}\n", n);
  return kExitOk;
}

int run_simplify(const SimplifyCommandFlags& f) {
  if (f.list_bugs) return list_bugs();
  if (f.list_rules) return list_rules();
  if (f.file.empty()) {
    fmt::print(stderr, "error: simplify needs a FILE (or --list-bugs / --list-rules)\n");
    return kExitBadInput;
  }
  auto opts = simplify_options(f.simplify);
  if (!opts) return kExitBadInput;
  auto k = load_kernel(f.file);
  if (!k) return kExitBadInput;
  ir::Kernel out = k->parsed.kernel;
  auto r = simplifier::simplify(*k->ctx, out.root, *opts);
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
  cmd.add_option("FILE", f->file, "the .uop file");
  add_simplify_flags(cmd, f->simplify);
  cmd.add_flag("--stats", f->stats,
               "append the stages' rewrite counts and the rule hit counts as # comments");
  cmd.add_flag("--list-bugs", f->list_bugs, "list the planted bugs and exit");
  cmd.add_flag("--list-rules", f->list_rules, "list the rule names and exit");
  return [f] { return run_simplify(*f); };
}

}  // namespace uopfuzz::cli
