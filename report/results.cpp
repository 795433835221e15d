#include "report/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace uopfuzz::report {
namespace {

// ordered: by_signature keeps the file's order.
using json = nlohmann::ordered_json;

/// Thrown inside this file only, to leave a nested reader at the first bad key;
/// parse_results turns it into an Error.
struct Bad {
  std::string why;
};

[[noreturn]] void bad_type(const std::string& where, const char* want, const json& got) {
  throw Bad{fmt::format("{}: expected {}, got {}", where, want, got.type_name())};
}

/// A JSON object with the key path that leads to it, so every error names its key.
class Obj {
 public:
  Obj(const json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) bad_type(where_.empty() ? "top level" : where_, "an object", j_);
  }

  std::string at(const char* key) const { return where_.empty() ? key : where_ + "." + key; }

  bool has(const char* key) const {
    auto it = j_.find(key);
    return it != j_.end() && !it->is_null();
  }

  const json& get(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) throw Bad{fmt::format("{}: missing", at(key))};
    return *it;
  }

  Obj obj(const char* key) const { return Obj(get(key), at(key)); }

  std::string str(const char* key) const {
    const json& v = get(key);
    if (!v.is_string()) bad_type(at(key), "a string", v);
    return v.get<std::string>();
  }
  std::string str_or(const char* key, std::string fallback) const {
    return has(key) ? str(key) : fallback;
  }

  double num(const char* key) const {
    const json& v = get(key);
    if (!v.is_number()) bad_type(at(key), "a number", v);
    return v.get<double>();
  }
  std::optional<double> opt_num(const char* key) const {
    if (!has(key)) return std::nullopt;
    return num(key);
  }

  int64_t integer(const char* key) const {
    const json& v = get(key);
    if (!v.is_number_integer()) bad_type(at(key), "an integer", v);
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
      throw Bad{fmt::format("{}: out of range", at(key))};
    return v.get<int64_t>();
  }
  std::optional<int64_t> opt_integer(const char* key) const {
    if (!has(key)) return std::nullopt;
    return integer(key);
  }
  std::optional<uint64_t> opt_unsigned(const char* key) const {
    if (!has(key)) return std::nullopt;
    const json& v = get(key);
    if (!v.is_number_unsigned()) bad_type(at(key), "a non-negative integer", v);
    return v.get<uint64_t>();
  }

  bool boolean_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = get(key);
    if (!v.is_boolean()) bad_type(at(key), "true or false", v);
    return v.get<bool>();
  }

  /// Calls f(element, "key[i]") for each element of the array KEY (absent: none).
  template <class F>
  void each(const char* key, bool required, F&& f) const {
    if (!required && !has(key)) return;
    const json& v = get(key);
    if (!v.is_array()) bad_type(at(key), "an array", v);
    for (size_t i = 0; i < v.size(); ++i) f(v[i], fmt::format("{}[{}]", at(key), i));
  }

 private:
  const json& j_;
  std::string where_;
};

double ns_per_unit(const std::string& unit, const std::string& where) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw Bad{fmt::format("{}: unknown time unit '{}' (ns, us, ms or s)", where, unit)};
}

RunContext read_context(const Obj& c) {
  RunContext ctx;
  ctx.date = c.str("date");
  ctx.epoch_seconds = parse_iso8601(ctx.date);
  ctx.commit = c.str("commit");
  ctx.host_name = c.str_or("host_name", "");
  ctx.executable = c.str_or("executable", "");
  ctx.uopfuzz_version = c.str_or("uopfuzz_version", "");
  ctx.machine = c.str_or("machine", "");
  ctx.cases = c.str_or("cases", "");
  ctx.reps = c.opt_integer("reps");
  c.each("devices", true, [&](const json& j, const std::string& where) {
    Obj d(j, where);
    ctx.devices.push_back({d.str("backend"), d.str("device"), d.str_or("driver", ""),
                           d.str_or("driver_info", ""), d.str_or("api_version", ""),
                           d.str_or("device_type", "")});
  });
  return ctx;
}

Benchmark read_benchmark(const Obj& b) {
  Benchmark r;
  r.backend = b.str("backend");
  r.device = b.str("device");
  r.case_name = b.str("case");
  r.variant = b.str("variant");
  r.name = b.str_or("name", "");
  r.measure = b.str_or("measure", "run");
  r.clock = b.str_or("clock", "");
  r.iterations = b.opt_integer("iterations").value_or(0);
  // Google Benchmark's default unit is ns, so a file without time_unit means ns.
  double scale = ns_per_unit(b.str_or("time_unit", "ns"), b.at("time_unit"));
  r.real_time_ns = b.num("real_time") * scale;
  if (auto v = b.opt_num("min")) r.min_ns = *v * scale;
  if (auto v = b.opt_num("max")) r.max_ns = *v * scale;
  b.each("samples", false, [&](const json& s, const std::string& where) {
    if (!s.is_number()) bad_type(where, "a number", s);
    r.samples_ns.push_back(s.get<double>() * scale);
  });
  return r;
}

Comparison read_comparison(const Obj& c) {
  Comparison r;
  r.backend = c.str("backend");
  r.device = c.str("device");
  r.case_name = c.str("case");
  r.original_ns = c.num("original_ns");
  r.rewritten_ns = c.num("rewritten_ns");
  if (auto s = c.opt_num("speedup"))
    r.speedup = *s;
  else
    r.speedup = r.rewritten_ns > 0 ? r.original_ns / r.rewritten_ns : 0;
  r.p_value = c.opt_num("p_value");
  r.regressed = c.boolean_or("regressed", false);
  r.confirmed = c.boolean_or("confirmed", false);
  r.rewrite_changed = c.boolean_or("rewrite_changed", true);
  r.corpus_case = c.str_or("corpus_case", "");
  return r;
}

SuiteVariant read_suite_variant(const Obj& v) {
  SuiteVariant r;
  r.ns = v.num("ns");
  r.gbps = v.num("gbps");
  r.gops = v.num("gops");
  r.fraction = v.opt_num("fraction");
  return r;
}

OtherLowering read_other_lowering(const Obj& o) {
  OtherLowering r;
  r.simplifier = o.str("simplifier");
  r.ours_ns = o.num("ours_ns");
  r.theirs_ns = o.num("theirs_ns");
  r.ratio = o.num("ratio");
  r.kernels_ours = o.integer("kernels_ours");
  r.kernels_theirs = o.integer("kernels_theirs");
  r.intermediates_ours = o.integer("intermediates_ours");
  r.intermediates_theirs = o.integer("intermediates_theirs");
  return r;
}

SuitePoint read_suite_point(const Obj& p) {
  SuitePoint r;
  r.case_name = p.str("case");
  r.form = p.str_or("form", "kernel");
  r.backend = p.str("backend");
  r.device = p.str("device");
  r.size = p.integer("size");
  r.bytes = p.integer("bytes");
  r.ops = p.integer("ops");
  r.bound = p.str_or("bound", "unknown");
  r.original = read_suite_variant(p.obj("original"));
  r.rewritten = read_suite_variant(p.obj("rewritten"));
  r.speedup = p.num("speedup");
  r.confirmed = p.boolean_or("confirmed", false);
  r.rewrite_changed = p.boolean_or("rewrite_changed", true);
  r.kernels_original = p.opt_integer("kernels_original").value_or(1);
  r.kernels_rewritten = p.opt_integer("kernels_rewritten").value_or(1);
  if (p.has("other_lowering")) r.other_lowering = read_other_lowering(p.obj("other_lowering"));
  return r;
}

FuzzFinding read_finding(const Obj& f) {
  FuzzFinding r;
  r.signature = f.str("signature");
  r.kind = f.str("kind");
  r.backend = f.str("backend");
  r.graph_index = f.opt_integer("graph_index");
  r.graph_seed = f.opt_unsigned("graph_seed");
  r.seconds = f.opt_num("seconds");
  r.nodes_found = f.opt_integer("nodes_found");
  r.nodes_reduced = f.opt_integer("nodes_reduced");
  r.path = f.str_or("path", "");
  r.write_error = f.str_or("write_error", "");
  r.details = f.str_or("details", "");
  r.root_cause = f.str_or("root_cause", "");
  r.reproducer = f.str_or("reproducer", "");
  r.level = f.str_or("level", "");
  if (f.has("latency")) {
    Obj l = f.obj("latency");
    r.latency = LatencyStats{l.num("ratio"), l.opt_num("p_value"), l.opt_num("confirm_ratio"),
                             l.opt_num("confirm_p_value"), l.boolean_or("confirmed", true)};
  }
  return r;
}

/// An object of integer counts (by_signature, rule_hits), in file order; absent: none.
std::vector<std::pair<std::string, int64_t>> counts(const Obj& top, const char* key) {
  std::vector<std::pair<std::string, int64_t>> out;
  if (!top.has(key)) return out;
  const json& m = top.get(key);
  if (!m.is_object()) bad_type(top.at(key), "an object", m);
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->is_number_integer()) bad_type(top.at(key) + "." + it.key(), "an integer", *it);
    out.emplace_back(it.key(), it->get<int64_t>());
  }
  return out;
}

/// "gate_counts": {rule: [[accepted, declined], ...]}, in file order; absent: none.
std::vector<std::pair<std::string, std::vector<std::pair<int64_t, int64_t>>>> gate_counts(
    const Obj& top) {
  std::vector<std::pair<std::string, std::vector<std::pair<int64_t, int64_t>>>> out;
  if (!top.has("gate_counts")) return out;
  const Obj rules = top.obj("gate_counts");
  const json& m = top.get("gate_counts");
  for (auto it = m.begin(); it != m.end(); ++it) {
    auto& gates = out.emplace_back(it.key(), std::vector<std::pair<int64_t, int64_t>>{}).second;
    rules.each(it.key().c_str(), true, [&](const json& g, const std::string& where) {
      if (!g.is_array() || g.size() != 2 || !g[0].is_number_integer() || !g[1].is_number_integer())
        bad_type(where, "[accepted, declined]", g);
      gates.emplace_back(g[0].get<int64_t>(), g[1].get<int64_t>());
    });
  }
  return out;
}

std::vector<std::string> strings(const Obj& top, const char* key) {
  std::vector<std::string> out;
  top.each(key, false, [&](const json& s, const std::string& where) {
    if (!s.is_string()) bad_type(where, "a string", s);
    out.push_back(s.get<std::string>());
  });
  return out;
}

FuzzSummary read_fuzz(const Obj& top) {
  FuzzSummary s;
  s.seed = top.opt_unsigned("seed");
  s.seconds = top.num("seconds");
  s.graphs = top.integer("graphs");
  s.graphs_per_second =
      top.opt_num("graphs_per_second").value_or(s.seconds > 0 ? double(s.graphs) / s.seconds : 0);
  s.jobs = top.opt_integer("jobs").value_or(1);
  top.each("backends", false, [&](const json& b, const std::string& where) {
    if (!b.is_string()) bad_type(where, "a string", b);
    s.backends.push_back(b.get<std::string>());
  });
  s.latency = top.boolean_or("latency", false);
  top.each("new_findings", true, [&](const json& j, const std::string& where) {
    s.new_findings.push_back(read_finding(Obj(j, where)));
  });
  s.findings = top.opt_integer("findings").value_or(int64_t(s.new_findings.size()));
  s.workers_lost = top.opt_integer("workers_lost").value_or(0);
  s.latency_timed = top.opt_integer("latency_timed").value_or(0);
  s.median_nodes = top.opt_integer("median_nodes").value_or(0);
  s.median_iterations = top.opt_integer("median_iterations").value_or(0);
  s.median_steps = top.opt_integer("median_steps").value_or(0);
  s.small_graphs = top.opt_integer("small_graphs").value_or(0);
  s.large_graphs = top.opt_integer("large_graphs").value_or(0);
  s.small_graphs_per_second = top.opt_num("small_graphs_per_second").value_or(0);
  s.large_graphs_per_second = top.opt_num("large_graphs_per_second").value_or(0);
  s.by_signature = counts(top, "by_signature");
  s.rule_hits = counts(top, "rule_hits");
  s.near_misses = counts(top, "near_misses");
  s.mutate_share = top.opt_num("mutate_share").value_or(0);
  s.graphs_mutated = top.opt_integer("graphs_mutated").value_or(0);
  s.rule_hit_target = top.opt_integer("rule_hit_target").value_or(0);
  s.rules_below_target = counts(top, "rules_below_target");
  if (top.has("unfireable_rules")) {
    const json& m = top.get("unfireable_rules");
    if (!m.is_object()) bad_type(top.at("unfireable_rules"), "an object", m);
    for (auto it = m.begin(); it != m.end(); ++it) {
      if (!it->is_string()) bad_type(top.at("unfireable_rules") + "." + it.key(), "a string", *it);
      s.unfireable_rules.emplace_back(it.key(), it->get<std::string>());
    }
  }
  s.gate_counts = gate_counts(top);
  s.gates_never_declined = strings(top, "gates_never_declined");
  s.gates_never_accepted = strings(top, "gates_never_accepted");
  return s;
}

/// 1-based line and column of byte offset BYTE (nlohmann counts the byte it stopped at).
SourceLoc line_col(std::string_view text, size_t byte) {
  SourceLoc loc{1, 1};
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

constexpr const char* kNotResults = "not a uopfuzz results file: ";

}  // namespace

Result<LoadedResults> parse_results(std::string_view text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    SourceLoc loc = line_col(text, e.byte);
    // nlohmann's message repeats the position after its own prefix; keep only the reason.
    std::string what = e.what();
    size_t col = what.find("column ");
    size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    return Error{fmt::format("{}invalid JSON at line {}, column {}: {}", kNotResults, loc.line,
                             loc.col, reason),
                 loc};
  }
  try {
    Obj top(j, "");
    LoadedResults r;
    r.path = path;
    bool bench = top.has("benchmarks"), fuzz = top.has("new_findings");
    if (bench && fuzz) throw Bad{"has both \"benchmarks\" and \"new_findings\""};
    if (!bench && !fuzz)
      throw Bad{
          "has neither \"benchmarks\" (a bench result) nor \"new_findings\" (a fuzz summary)"};
    r.context = read_context(top.obj("context"));
    if (bench) {
      r.kind = ResultsKind::Bench;
      top.each("benchmarks", true, [&](const json& b, const std::string& where) {
        r.benchmarks.push_back(read_benchmark(Obj(b, where)));
      });
      top.each("comparisons", false, [&](const json& c, const std::string& where) {
        r.comparisons.push_back(read_comparison(Obj(c, where)));
      });
      if (top.has("suite")) r.suite_preset = top.obj("suite").str("preset");
      top.each("roofline", false, [&](const json& j, const std::string& where) {
        Obj o(j, where);
        r.roofline.push_back({o.str("backend"), o.str("device"), o.opt_num("gbps"),
                              o.opt_num("gops"), o.opt_num("balance_ops_per_byte"),
                              o.str_or("error", "")});
      });
      top.each("suite_points", false, [&](const json& j, const std::string& where) {
        r.suite_points.push_back(read_suite_point(Obj(j, where)));
      });
      top.each("size_regressions", false, [&](const json& j, const std::string& where) {
        Obj o(j, where);
        r.size_regressions.push_back({o.str("case"), o.str("backend"), o.str("device"),
                                      o.integer("found_at"), o.integer("smallest"),
                                      o.num("ratio")});
      });
    } else {
      r.kind = ResultsKind::Fuzz;
      r.fuzz = read_fuzz(top);
    }
    return r;
  } catch (const Bad& b) {
    return Error{kNotResults + b.why};
  } catch (const json::exception& e) {
    // Only reachable through a conversion the checks above missed; still an input error.
    return Error{kNotResults + std::string(e.what())};
  }
}

std::string fuzz_summary_json(const FuzzSummary& s, std::string_view context) {
  auto object = [](const std::vector<std::pair<std::string, int64_t>>& counts) {
    json o = json::object();
    for (const auto& [name, n] : counts) o[name] = n;
    return o;
  };
  json j;
  j["context"] = json::parse(context);
  if (s.seed) j["seed"] = *s.seed;
  j["seconds"] = s.seconds;
  j["graphs"] = s.graphs;
  j["graphs_per_second"] = s.graphs_per_second;
  j["jobs"] = s.jobs;
  j["backends"] = s.backends;
  j["latency"] = s.latency;
  j["workers_lost"] = s.workers_lost;
  j["latency_timed"] = s.latency_timed;
  j["median_nodes"] = s.median_nodes;
  j["median_iterations"] = s.median_iterations;
  j["median_steps"] = s.median_steps;
  j["small_graphs"] = s.small_graphs;
  j["large_graphs"] = s.large_graphs;
  j["small_graphs_per_second"] = s.small_graphs_per_second;
  j["large_graphs_per_second"] = s.large_graphs_per_second;
  j["findings"] = s.findings;
  j["by_signature"] = object(s.by_signature);
  j["rule_hits"] = object(s.rule_hits);
  j["near_misses"] = object(s.near_misses);
  j["mutate_share"] = s.mutate_share;
  j["graphs_mutated"] = s.graphs_mutated;
  j["graphs_generated"] = s.graphs - s.graphs_mutated;
  j["rule_hit_target"] = s.rule_hit_target;
  j["rules_below_target"] = object(s.rules_below_target);
  json why = json::object();
  for (const auto& [name, reason] : s.unfireable_rules) why[name] = reason;
  j["unfireable_rules"] = why;
  json gates = json::object();
  for (const auto& [rule, counts] : s.gate_counts) {
    json g = json::array();
    for (const auto& [accepted, declined] : counts) g.push_back({accepted, declined});
    gates[rule] = std::move(g);
  }
  j["gate_counts"] = std::move(gates);
  j["gates_never_declined"] = s.gates_never_declined;
  j["gates_never_accepted"] = s.gates_never_accepted;
  json findings = json::array();
  for (const FuzzFinding& f : s.new_findings) {
    json one = {{"signature", f.signature}, {"kind", f.kind}, {"backend", f.backend}};
    if (f.graph_index) one["graph_index"] = *f.graph_index;
    if (f.graph_seed) one["graph_seed"] = *f.graph_seed;
    if (f.seconds) one["seconds"] = *f.seconds;
    if (f.nodes_found) one["nodes_found"] = *f.nodes_found;
    if (f.nodes_reduced) one["nodes_reduced"] = *f.nodes_reduced;
    one["path"] = f.path;
    one["write_error"] = f.write_error;
    one["details"] = f.details;
    if (!f.root_cause.empty()) one["root_cause"] = f.root_cause;
    if (!f.reproducer.empty()) one["reproducer"] = f.reproducer;
    if (!f.level.empty()) one["level"] = f.level;
    if (const auto& l = f.latency) {
      json lat = {{"ratio", l->ratio}};
      if (l->p_value) lat["p_value"] = *l->p_value;
      if (l->confirm_ratio) lat["confirm_ratio"] = *l->confirm_ratio;
      if (l->confirm_p_value) lat["confirm_p_value"] = *l->confirm_p_value;
      lat["confirmed"] = l->confirmed;
      one["latency"] = lat;
    }
    findings.push_back(one);
  }
  j["new_findings"] = findings;
  return j.dump(2) + "\n";
}

Result<LoadedResults> load_results(const std::string& path) {
  std::error_code ec;
  std::ifstream f;
  if (std::filesystem::is_regular_file(path, ec)) f.open(path, std::ios::binary);
  if (!f.is_open())
    return Error{
        fmt::format("{}: cannot read the file (missing, unreadable or not a regular file)", path)};
  std::ostringstream ss;
  ss << f.rdbuf();
  auto r = parse_results(ss.str(), path);
  if (!r) return Error{fmt::format("{}: {}", path, r.error().message), r.error().loc};
  return r;
}

std::optional<int64_t> parse_iso8601(std::string_view s) {
  auto digits = [&](size_t pos, size_t n) -> std::optional<int> {
    if (pos + n > s.size()) return std::nullopt;
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  auto sep = [&](size_t pos, char c) {
    return pos < s.size() && (s[pos] == c || (c == 'T' && s[pos] == ' '));
  };
  auto y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2), h = digits(11, 2), mi = digits(14, 2),
       sec = digits(17, 2);
  if (!y || !mo || !d || !h || !mi || !sec || !sep(4, '-') || !sep(7, '-') || !sep(10, 'T') ||
      !sep(13, ':') || !sep(16, ':'))
    return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *sec > 60)
    return std::nullopt;
  size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  }
  int64_t offset = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
    } else if ((s[pos] == '+' || s[pos] == '-') && pos + 6 == s.size() && s[pos + 3] == ':') {
      auto oh = digits(pos + 1, 2), om = digits(pos + 4, 2);
      if (!oh || !om) return std::nullopt;
      offset = (s[pos] == '+' ? 1 : -1) * (int64_t(*oh) * 3600 + *om * 60);
    } else {
      return std::nullopt;
    }
  }
  // Days from civil (Howard Hinnant's algorithm): exact for the proleptic Gregorian calendar.
  int64_t yy = *y - (*mo <= 2);
  int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  int64_t yoe = yy - era * 400;
  int64_t doy = (153 * (*mo + (*mo > 2 ? -3 : 9)) + 2) / 5 + *d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  return days * 86400 + int64_t(*h) * 3600 + *mi * 60 + *sec - offset;
}

std::string short_commit(const std::string& commit) {
  constexpr std::string_view kDirty = "-dirty";
  std::string hash = commit;
  bool dirty = hash.size() > kDirty.size() && hash.ends_with(kDirty);
  if (dirty) hash.resize(hash.size() - kDirty.size());
  bool hex = !hash.empty() && std::all_of(hash.begin(), hash.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
  if (!hex) return commit;
  return hash.substr(0, 7) + (dirty ? std::string(kDirty) : "");
}

std::vector<const LoadedResults*> by_date(const std::vector<LoadedResults>& runs) {
  std::vector<const LoadedResults*> out;
  for (const auto& r : runs) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const LoadedResults* a, const LoadedResults* b) {
    const auto &ea = a->context.epoch_seconds, &eb = b->context.epoch_seconds;
    if (ea.has_value() != eb.has_value()) return ea.has_value();
    if (ea && *ea != *eb) return *ea < *eb;
    return a->path < b->path;
  });
  return out;
}

}  // namespace uopfuzz::report
