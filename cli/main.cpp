// The uopfuzz command line. Subcommands only parse flags, call the libraries and print.
// Exit status: 0 ok, 1 a finding (undefined behaviour, output mismatch, step limit),
// 2 bad input or usage.

#include <charconv>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unordered_map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;
using namespace ir;

constexpr int kExitOk = 0;
constexpr int kExitFinding = 1;
constexpr int kExitBadInput = 2;

/// A parsed and verified .uop file, or a printed error.
struct LoadedKernel {
  std::unique_ptr<Context> ctx = std::make_unique<Context>();
  ParsedKernel parsed;
  std::unordered_map<UOp, size_t, UOpHash> names;  // printed name %k of each node
};

std::optional<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Loads FILE, reporting every problem as `file:line:col: error: ...` on stderr.
std::optional<LoadedKernel> load(const std::string& path) {
  auto text = read_file(path);
  if (!text) {
    fmt::print(stderr, "{}: error: cannot read the file (missing, unreadable or not a regular file)\n", path);
    return std::nullopt;
  }
  LoadedKernel k;
  auto parsed = parse_kernel(*k.ctx, *text);
  if (!parsed) {
    const Error& e = parsed.error();
    fmt::print(stderr, "{}:{}:{}: error: {}\n", path, e.loc.line, e.loc.col, e.message);
    return std::nullopt;
  }
  k.parsed = std::move(parsed.value());
  auto errors = verify(k.parsed.kernel.root);
  for (const auto& e : errors) {
    SourceLoc loc = k.parsed.where.count(e.node) ? k.parsed.where.at(e.node) : SourceLoc{};
    fmt::print(stderr, "{}:{}:{}: error: [{}] {}\n", path, loc.line, loc.col, verify_rule_name(e.rule), e.message);
  }
  if (!errors.empty()) return std::nullopt;
  for (UOp u : toposort(k.parsed.kernel.root)) k.names.emplace(u, k.names.size());
  return k;
}

json value_json(DType dt, Value v) {
  switch (dt.kind()) {
    case DTypeKind::Bool: return v.i != 0;
    case DTypeKind::Unsigned: return v.u;
    case DTypeKind::Float:
      if (std::isnan(v.f) || std::isinf(v.f)) return format_value(dt, v);  // JSON has no NaN/inf
      return v.f;
    default: return v.i;
  }
}

int cmd_parse(const std::string& path) {
  auto k = load(path);
  if (!k) return kExitBadInput;
  fmt::print("{}", print_kernel(k->parsed.kernel));
  return kExitOk;
}

struct RunFlags {
  std::string file;
  bool quiet = false;  // replay: no per-kernel report, only the verdict
  std::string backend = "oracle";
  std::optional<uint64_t> seed;
  std::vector<std::string> vars;
  bool json = false;
  uint64_t max_steps = 2'000'000'000;
};

int cmd_run(const RunFlags& f) {
  if (f.backend != "oracle") {
    fmt::print(stderr, "error: unknown backend '{}' (available: oracle)\n", f.backend);
    return kExitBadInput;
  }
  auto k = load(f.file);
  if (!k) return kExitBadInput;
  const Kernel& kernel = k->parsed.kernel;
  const KernelHeader& h = kernel.header;

  std::map<std::string, int64_t> vars(h.vars.begin(), h.vars.end());
  for (const std::string& kv : f.vars) {
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
      return kExitBadInput;
    }
    vars[kv.substr(0, eq)] = v;
  }
  const uint64_t seed = f.seed.value_or(h.seed.value_or(0));
  oracle::Inputs inputs = oracle::make_inputs(kernel.root, seed, vars);
  oracle::RunOptions opts;
  opts.max_steps = f.max_steps;
  auto out = oracle::run(kernel.root, inputs, opts);
  if (!out) {
    fmt::print(stderr, "{}: error: {}\n", f.file, out.error().message);
    return kExitBadInput;
  }

  auto name_of = [&](UOp u) { return fmt::format("%{}", k->names.at(u)); };
  auto line_of = [&](UOp u) { return k->parsed.where.count(u) ? k->parsed.where.at(u).line : 0; };

  // Compare against the header's expectations.
  const bool ub = out->status == oracle::RunStatus::Ub;
  json mismatches = json::array();
  if (out->status == oracle::RunStatus::Ok)
    for (const ExpectedOutput& e : h.outputs) {
      const Buffer& got = out->outputs.at(e.slot);
      for (size_t i = 0; i < e.values.size(); ++i)
        if (!same_bits(got.get(i), e.values[i]))
          mismatches.push_back({{"slot", e.slot}, {"index", i},
                                {"expected", format_value(got.dtype(), e.values[i])},
                                {"got", format_value(got.dtype(), got.get(i))}});
    }
  const bool outcome_ok = out->status != oracle::RunStatus::StepLimit &&
                          (ub == (h.expect == Expect::Ub)) && mismatches.empty();

  json j;
  j["file"] = f.file;
  j["name"] = h.name;
  j["backend"] = f.backend;
  j["seed"] = seed;
  j["vars"] = inputs.vars;
  j["status"] = out->status == oracle::RunStatus::Ok ? "ok" : ub ? "ub" : "step-limit";
  j["steps"] = out->steps;
  if (out->ub) {
    json it = json::array();
    for (auto [r, v] : out->ub->iteration) it.push_back({{"range", name_of(r)}, {"value", v}});
    j["ub"] = {{"node", name_of(out->ub->node)}, {"op", op_name(out->ub->node.op())},
               {"line", line_of(out->ub->node)}, {"what", out->ub->what}, {"iteration", it}};
  }
  json outputs = json::array();
  for (const auto& [slot, buf] : out->outputs) {
    json values = json::array();
    for (size_t i = 0; i < buf.size(); ++i) values.push_back(value_json(buf.dtype(), buf.get(i)));
    outputs.push_back({{"slot", slot}, {"dtype", buf.dtype().name()}, {"values", values}});
  }
  j["outputs"] = outputs;
  j["expected"] = {{"outcome", h.expect == Expect::Ub ? "ub" : "ok"},
                   {"outputs_checked", !h.outputs.empty()},
                   {"mismatches", mismatches},
                   {"pass", outcome_ok}};

  if (f.quiet) {
    // replay prints its own one-line verdicts
  } else if (f.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{} ({}, seed {}): {} after {} steps\n", h.name.empty() ? f.file : h.name, f.backend, seed,
               j["status"].get<std::string>(), out->steps);
    if (out->ub) {
      std::string where;
      for (auto [r, v] : out->ub->iteration) where += fmt::format(" {}={}", name_of(r), v);
      fmt::print("  undefined behaviour at {} ({}, line {}): {}{}\n", name_of(out->ub->node),
                 op_name(out->ub->node.op()), line_of(out->ub->node), out->ub->what,
                 where.empty() ? "" : " at" + where);
    }
    for (const auto& [slot, buf] : out->outputs) {
      std::string vals;
      const size_t shown = std::min<size_t>(buf.size(), 16);
      for (size_t i = 0; i < shown; ++i) vals += (i ? ", " : "") + format_value(buf.dtype(), buf.get(i));
      if (buf.size() > shown) vals += fmt::format(", ... ({} more)", buf.size() - shown);
      fmt::print("  out[{}] {} x {}: [{}]\n", slot, buf.size(), buf.dtype().name(), vals);
    }
    for (const auto& m : mismatches)
      fmt::print("  MISMATCH out[{}][{}]: expected {}, got {}\n", m["slot"].get<int>(), m["index"].get<size_t>(),
                 m["expected"].get<std::string>(), m["got"].get<std::string>());
    if (h.expect_given || !h.outputs.empty())
      fmt::print("  expectation ({}{}): {}\n", h.expect == Expect::Ub ? "ub" : "ok",
                 h.outputs.empty() ? "" : " with outputs", outcome_ok ? "met" : "NOT met");
  }
  return outcome_ok ? kExitOk : kExitFinding;
}

/// Runs every .uop file under the given files/directories against its header's
/// expectations; one line per case, then a summary. Exit 1 if any case fails.
int cmd_replay(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".uop") files.push_back(e.path().string());
    } else if (std::filesystem::exists(p, ec)) {
      files.push_back(p);
    } else {
      fmt::print(stderr, "error: no such file or directory: {}\n", p);
      return kExitBadInput;
    }
  }
  std::sort(files.begin(), files.end());
  int passed = 0, failed = 0;
  for (const std::string& file : files) {
    RunFlags rf;
    rf.file = file;
    rf.quiet = true;
    int rc = cmd_run(rf);
    fmt::print("{} {}\n", rc == kExitOk ? "PASS" : rc == kExitFinding ? "FAIL" : "ERROR", file);
    (rc == kExitOk ? passed : failed)++;
  }
  fmt::print("replay: {} passed, {} failed\n", passed, failed);
  return failed ? kExitFinding : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"uopfuzz: differential fuzzing and benchmarks for a UOp kernel-graph simplifier"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "uopfuzz 0.1.0");
  app.footer("Exit status: 0 ok, 1 finding, 2 bad input or usage.");

  std::string parse_file;
  auto* parse = app.add_subcommand("parse", "Parse and verify a .uop file; print its canonical form");
  parse->add_option("FILE", parse_file, "the .uop file")->required();

  RunFlags rf;
  auto* run = app.add_subcommand("run", "Run a .uop kernel and print its outputs; check the header's expectations");
  run->add_option("FILE", rf.file, "the .uop file")->required();
  run->add_option("--backend", rf.backend, "backend to run on (available: oracle)")->capture_default_str();
  run->add_option("--seed", rf.seed, "input-fill seed (default: the file's @seed, else 0)");
  run->add_option("--var", rf.vars, "VAR value NAME=V (repeatable; default: the file's @var, else seed-derived)");
  run->add_flag("--json", rf.json, "print the result as JSON (schema in README)");
  run->add_option("--max-steps", rf.max_steps, "stop after this many interpreter steps")->capture_default_str();

  std::vector<std::string> replay_paths;
  auto* replay = app.add_subcommand("replay", "Run every .uop case in the given files/directories against its expectations");
  replay->add_option("PATHS", replay_paths, "files or directories (searched recursively for *.uop)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  if (*parse) return cmd_parse(parse_file);
  if (*run) return cmd_run(rf);
  if (*replay) return cmd_replay(replay_paths);
  return kExitBadInput;
}

}  // namespace uopfuzz::cli

int main(int argc, char** argv) { return uopfuzz::cli::main(argc, argv); }
