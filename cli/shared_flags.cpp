#include "cli/shared_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "backends/registry.h"
#include "fuzz/isolate.h"

namespace uopfuzz::cli {

std::string backend_list() {
  return fmt::format("{}", fmt::join(backends::backend_names(), ", "));
}

bool valid_backends(const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (!backends::find_backend(n)) {
      fmt::print(stderr, "error: unknown backend '{}' (available: {})\n", n, backend_list());
      return false;
    }
  if (names.empty()) fmt::print(stderr, "error: --backends needs at least one backend\n");
  return !names.empty();
}

bool is_compiled_backend(const std::string& name) {
  return backends::find_backend(name) && name != "oracle";
}

std::string device_problem(const std::string& backend) {
  fuzz::ChildOutcome probe = fuzz::run_isolated(
      [&] {
        auto d = backends::find_backend(backend)->device();
        return d ? std::string("ok") : d.error().message;
      },
      60);
  if (probe.status != fuzz::ChildOutcome::Status::Returned)
    return "opening its device " + probe.describe();
  return probe.output == "ok" ? "" : probe.output;
}

void add_simplifier_flags(CLI::App& cmd, SimplifierFlags& f) {
  cmd.add_option("--simplifier", f.spec,
                 "the simplifier under test: builtin (this project's rules, in process), tinygrad "
                 "(tinygrad's own rewrites through adapters/tinygrad), or external:CMD (a program "
                 "speaking docs/external-simplifier.md, run by /bin/sh)")
      ->capture_default_str();
  cmd.add_option("--simplifier-timeout", f.timeout_s,
                 "seconds an external simplifier may take on one graph before it is a hang")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--tinygrad", f.tinygrad_path,
                 "the tinygrad checkout --simplifier tinygrad imports (the folder holding the "
                 "tinygrad package; default: $TINYGRAD_PATH, else an importable tinygrad)");
  cmd.add_option("--tinygrad-stage", f.tinygrad_stage,
                 "which of tinygrad's rewrites: symbolic (graph_rewrite with symbolic), full "
                 "(full_rewrite_to_sink up to its postopt symbolic step), or pipeline (a kernel "
                 "runs through tinygrad's whole codegen to its devices). Tensor programs always "
                 "run through tinygrad's whole pipeline, from its scheduler to its devices")
      ->check(CLI::IsMember({"symbolic", "full", "pipeline"}))
      ->capture_default_str();
  cmd.add_option("--adapter-bug", f.adapter_bugs,
                 "switch on a planted bug of the tinygrad adapter (repeatable)");
}

std::optional<std::shared_ptr<sut::Simplifier>> simplifier_under_test(
    const SimplifierFlags& f, const simplifier::SimplifyOptions& options) {
  if (!f.external()) {
    if (!f.adapter_bugs.empty()) {
      fmt::print(stderr, "error: --adapter-bug needs --simplifier tinygrad\n");
      return std::nullopt;
    }
    return std::shared_ptr<sut::Simplifier>();
  }
  sut::ExternalOptions eo;
  eo.timeout_s = f.timeout_s;
  eo.tinygrad_path = f.tinygrad_path;
  eo.tinygrad_stage = f.tinygrad_stage;
  eo.adapter_bugs = f.adapter_bugs;
  auto made = sut::make_simplifier(f.spec, eo);
  if (!made) {
    fmt::print(stderr, "error: {}\n", made.error().message);
    return std::nullopt;
  }
  std::shared_ptr<sut::Simplifier> s = *made;
  // Asked only when needed: an external simplifier learns its capabilities from its child.
  if (options.bugs.any() && !s->capabilities().bugs) {
    fmt::print(stderr,
               "error: --inject-bug plants bugs in the built-in simplifier; --simplifier {} "
               "cannot take them (its own planted bugs: --adapter-bug)\n",
               f.spec);
    return std::nullopt;
  }
  if (!options.disabled.empty() && !s->capabilities().disable) {
    fmt::print(stderr, "error: --disable-rule: --simplifier {} cannot switch rules off\n", f.spec);
    return std::nullopt;
  }
  return s;
}

void add_simplify_flags(CLI::App& cmd, SimplifyFlags& f) {
  add_simplifier_flags(cmd, f.simplifier);
  cmd.add_flag("--no-optimize", f.no_optimize, "run only the stages that run without optimization");
  cmd.add_option("--inject-bug", f.bugs,
                 "switch on a planted bug (repeatable; see simplify --list-bugs)");
  cmd.add_option("--disable-rule", f.disabled,
                 "switch off a rule by name (repeatable; see simplify --list-rules)");
}

std::optional<simplifier::SimplifyOptions> simplify_options(const SimplifyFlags& f) {
  simplifier::SimplifyOptions o;
  o.optimize = !f.no_optimize;
  for (const auto& name : f.bugs) {
    auto bug = simplifier::parse_bug(name);
    if (!bug) {
      fmt::print(stderr,
                 "error: unknown planted bug '{}' (uopfuzz simplify --list-bugs lists them)\n",
                 name);
      return std::nullopt;
    }
    o.bugs.enable(*bug);
  }
  auto known = simplifier::all_rule_names();
  for (const auto& name : f.disabled) {
    if (!f.simplifier.external() && std::find(known.begin(), known.end(), name) == known.end()) {
      fmt::print(stderr, "error: unknown rule '{}' (uopfuzz simplify --list-rules lists them)\n",
                 name);
      return std::nullopt;
    }
    o.disabled.insert(name);
  }
  return o;
}

void add_latency_flags(CLI::App& cmd, LatencyFlags& f) {
  cmd.add_flag("--latency", f.on,
               "also time the rewrite against the original: a confirmed slowdown is a finding of "
               "kind latency");
  cmd.add_option("--latency-backend", f.options.backend, "backend the kernels are timed on")
      ->capture_default_str();
  cmd.add_option("--latency-samples", f.options.samples,
                 "timed samples of each kernel per round (at least 9)")
      ->capture_default_str();
  cmd.add_option("--latency-threshold", f.options.min_slowdown,
                 "smallest slowdown (rewritten / original median time) that counts")
      ->capture_default_str();
  cmd.add_option("--latency-alpha", f.options.alpha,
                 "Mann-Whitney U one-sided p-value it must be below")
      ->capture_default_str();
}

std::optional<std::optional<check::LatencyOptions>> latency_options(const LatencyFlags& f) {
  if (!f.on) return std::optional<check::LatencyOptions>{};
  const auto& o = f.options;
  if (o.samples < 9 || o.min_slowdown < 1 || o.alpha <= 0 || o.alpha >= 1) {
    fmt::print(stderr,
               "error: --latency-samples must be at least 9, --latency-threshold at least 1, "
               "--latency-alpha in (0, 1)\n");
    return std::nullopt;
  }
  if (!is_compiled_backend(o.backend)) {
    fmt::print(stderr, "error: --latency-backend must be a compiled backend (available: {})\n",
               backend_list());
    return std::nullopt;
  }
  if (std::string why = device_problem(o.backend); !why.empty()) {
    fmt::print(stderr, "error: --latency-backend {}: {}\n", o.backend, why);
    return std::nullopt;
  }
  return std::optional<check::LatencyOptions>{o};
}

void add_device_flag(CLI::App& cmd, std::string& device) {
  cmd.add_option("--device", device,
                 "Vulkan device: index or name substring (default: first GPU, else lavapipe; see "
                 "`uopfuzz devices`)");
}

sut::ExternalOptions external_options(const SimplifierFlags& f) {
  sut::ExternalOptions eo;
  eo.timeout_s = f.timeout_s;
  eo.tinygrad_path = f.tinygrad_path;
  eo.tinygrad_stage = f.tinygrad_stage;
  eo.adapter_bugs = f.adapter_bugs;
  return eo;
}

}  // namespace uopfuzz::cli
