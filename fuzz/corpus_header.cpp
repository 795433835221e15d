#include "fuzz/corpus_header.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "backends/registry.h"
#include "check/dedup.h"
#include "schedule/lower.h"

namespace uopfuzz::fuzz {
namespace {

// Header values are one line without '#' (which starts a comment).
std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '#' || ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.empty() ? std::string("-") : s;
}

/// The 1-based line of the first `@key` header line of `text` (0 when there is none).
int line_of_key(std::string_view text, std::string_view key) {
  int line = 1;
  for (size_t at = 0; at < text.size(); ++line) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(at, end - at);
    const size_t first = l.find_first_not_of(" \t");
    if (first != std::string_view::npos && l.substr(first).starts_with("@")) {
      std::string_view rest = l.substr(first + 1);
      if (rest.starts_with(key) &&
          (rest.size() == key.size() || rest[key.size()] == ' ' || rest[key.size()] == '\t'))
        return line;
    }
    at = end + 1;
  }
  return 0;
}

template <class T>
bool parse_number(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

/// The blank-separated words of `s`.
std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  for (size_t at = 0; at < s.size();) {
    const size_t end = std::min(s.find(' ', at), s.size());
    if (end > at) out.emplace_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string backend_names() {
  return fmt::format("{}", fmt::join(backends::backend_names(), ", "));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> corpus_header_lines(const CorpusHeader& h) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (!h.signature.empty()) lines.emplace_back("signature", h.signature);
  if (h.check_clean) lines.emplace_back("check", "clean");
  if (!h.check_backends.empty())
    lines.emplace_back("check-backends", fmt::format("{}", fmt::join(h.check_backends, ",")));
  lines.emplace_back("found-by", one_line(h.found_by));
  if (h.graph_seed) lines.emplace_back("graph-seed", fmt::format("{}", *h.graph_seed));
  lines.emplace_back("details", one_line(h.details));
  if (!h.simplifier.empty()) lines.emplace_back("simplifier", one_line(h.simplifier));
  if (!h.simplifier_version.empty())
    lines.emplace_back("simplifier-version", one_line(h.simplifier_version));
  if (!h.simplifier_stage.empty())
    lines.emplace_back("simplifier-stage", one_line(h.simplifier_stage));
  if (!h.forms.empty()) lines.emplace_back("forms", fmt::format("{}", fmt::join(h.forms, " ")));
  if (!h.verdict.empty()) lines.emplace_back("verdict", h.verdict);
  if (!h.root_cause.empty()) lines.emplace_back("root-cause", one_line(h.root_cause));
  if (h.pcontig) lines.emplace_back("pcontig", fmt::format("{}", *h.pcontig));
  if (h.split_reduce_threshold)
    lines.emplace_back("split-reduce-threshold", fmt::format("{}", *h.split_reduce_threshold));
  if (!h.lower_disabled.empty())
    lines.emplace_back("lower-disable", fmt::format("{}", fmt::join(h.lower_disabled, " ")));
  if (h.kernels) lines.emplace_back("kernels", fmt::format("{}", *h.kernels));
  if (h.cpu_opt) lines.emplace_back("cpu-opt", std::string(backends::opt_level_name(*h.cpu_opt)));
  if (const auto& l = h.latency) {
    lines.emplace_back("check-latency", l->backend);
    lines.emplace_back("latency-ratio", fmt::format("{:.3f}", l->ratio));
    lines.emplace_back("latency-p", fmt::format("{:.3g}", l->p_value));
    lines.emplace_back("latency-rerun-ratio", fmt::format("{:.3f}", l->rerun_ratio));
    lines.emplace_back("latency-rerun-p", fmt::format("{:.3g}", l->rerun_p_value));
    lines.emplace_back("latency-confirmed", l->confirmed ? "yes" : "no");
  }
  return lines;
}

Result<CorpusHeader> read_corpus_header(const ir::KernelHeader& header, std::string_view text) {
  CorpusHeader h;
  CorpusLatency latency;
  std::string latency_key;  // the first latency figure seen, for the error without @check-latency
  for (const auto& line : header.extra) {
    // Named, not structured bindings: clang 14 cannot capture those in the lambdas below.
    const std::string& key = line.first;
    const std::string& value = line.second;
    auto fail = [&](std::string why) {
      return Error{fmt::format("@{} {}", key, why), SourceLoc{line_of_key(text, key), 0}};
    };
    auto number = [&](double& out) { return parse_number(value, out); };
    if (key == "signature") {
      h.signature = value;
    } else if (key == "check") {
      if (value != "clean") return fail(fmt::format("must be 'clean', not '{}'", value));
      h.check_clean = true;
    } else if (key == "check-backends") {
      h.check_backends.clear();
      for (size_t at = 0; at <= value.size();) {
        const size_t comma = std::min(value.find(',', at), value.size());
        h.check_backends.push_back(value.substr(at, comma - at));
        at = comma + 1;
      }
      for (const std::string& b : h.check_backends)
        if (!backends::find_backend(b))
          return fail(fmt::format(
              "must list backends by name, comma-separated: '{}' is not one (available: {})", b,
              backend_names()));
    } else if (key == "check-latency") {
      if (!backends::find_backend(value) || value == "oracle")
        return fail(fmt::format("names '{}', not a compiled backend ({})", value, backend_names()));
      latency.backend = value;
    } else if (key == "found-by") {
      h.found_by = value == "-" ? "" : value;
    } else if (key == "details") {
      h.details = value == "-" ? "" : value;
    } else if (key == "simplifier") {
      h.simplifier = value == "builtin" ? "" : value;
    } else if (key == "simplifier-version") {
      h.simplifier_version = value == "-" ? "" : value;
    } else if (key == "simplifier-stage") {
      h.simplifier_stage = value == "-" ? "" : value;
    } else if (key == "forms") {
      h.forms = words(value);
    } else if (key == "verdict") {
      if (value != "real" && value != "difference")
        return fail(fmt::format("must be real or difference, not '{}'", value));
      h.verdict = value;
    } else if (key == "root-cause") {
      h.root_cause = value;
    } else if (key == "graph-seed") {
      uint64_t seed = 0;
      if (!parse_number(value, seed)) return fail("must be an unsigned integer");
      h.graph_seed = seed;
    } else if (key == "pcontig") {
      int level = 0;
      if (!parse_number(value, level) || level < kMinPcontig || level > kMaxPcontig)
        return fail(fmt::format("must be an integer in {}..{}", kMinPcontig, kMaxPcontig));
      h.pcontig = level;
    } else if (key == "split-reduce-threshold" || key == "kernels") {
      int64_t n = 0;
      if (!parse_number(value, n) || n < 1) return fail("must be an integer of at least 1");
      (key == "kernels" ? h.kernels : h.split_reduce_threshold) = n;
    } else if (key == "lower-disable") {
      const std::vector<std::string> names = schedule::tensor_rule_names();
      h.lower_disabled = words(value);
      for (const std::string& w : h.lower_disabled)
        if (std::find(names.begin(), names.end(), w) == names.end())
          return fail(fmt::format("'{}' is not a tensor rule (simplify --list-rules)", w));
    } else if (key == "cpu-opt") {
      h.cpu_opt = backends::parse_opt_level(value);
      if (!h.cpu_opt) return fail(fmt::format("must be O0, O1, O2 or O3, not '{}'", value));
    } else if (key == "latency-ratio" || key == "latency-p" || key == "latency-rerun-ratio" ||
               key == "latency-rerun-p") {
      double& figure = key == "latency-ratio"         ? latency.ratio
                       : key == "latency-p"           ? latency.p_value
                       : key == "latency-rerun-ratio" ? latency.rerun_ratio
                                                      : latency.rerun_p_value;
      if (!number(figure)) return fail("must be a number");
      if (latency_key.empty()) latency_key = key;
    } else if (key == "latency-confirmed") {
      if (value != "yes" && value != "no") return fail("must be yes or no");
      latency.confirmed = value == "yes";
      if (latency_key.empty()) latency_key = key;
    }
  }
  if (!latency.backend.empty())
    h.latency = latency;
  else if (!latency_key.empty())
    return Error{
        fmt::format("@{} without @check-latency (which backend it was timed on)", latency_key),
        SourceLoc{line_of_key(text, latency_key), 0}};
  return h;
}

void record_simplifier(CorpusHeader& header, const check::CheckOptions& options) {
  if (!check::is_external(options)) return;
  header.simplifier = options.simplifier->name();
  header.simplifier_version = options.simplifier->version();
  header.simplifier_stage = options.simplifier->stage();
  header.forms = options.simplify.forms;
}

std::vector<std::string> recorded_forms(const ir::KernelHeader& header) {
  for (const auto& [key, value] : header.extra)
    if (key == "forms") return words(value);
  return {};
}

void record_lowering(CorpusHeader& header, const schedule::LowerOptions& options) {
  header.pcontig = options.pcontig;
  header.split_reduce_threshold = options.split_reduce_threshold;
  header.lower_disabled.assign(options.disabled.begin(), options.disabled.end());
}

schedule::LowerOptions with_recorded_lowering(schedule::LowerOptions options,
                                              const CorpusHeader& header) {
  if (header.pcontig) options.pcontig = *header.pcontig;
  if (header.split_reduce_threshold)
    options.split_reduce_threshold = *header.split_reduce_threshold;
  options.disabled.insert(header.lower_disabled.begin(), header.lower_disabled.end());
  return options;
}

check::CheckOptions replay_check_options(const CorpusHeader& corpus,
                                         const ir::KernelHeader& header) {
  check::CheckOptions co;
  co.base_seed = header.seed.value_or(0);
  co.vars.insert(header.vars.begin(), header.vars.end());
  co.simplify.forms = corpus.forms;
  if (!corpus.check_backends.empty()) co.backends = corpus.check_backends;
  if (corpus.cpu_opt) co.opt_level = *corpus.cpu_opt;
  // A wrong fact is shown by the bounds check; other cases replay as they always have.
  co.check_bounds = corpus.signature.starts_with("unsound-bounds/");
  if (corpus.latency) {
    co.latency = check::LatencyOptions{};
    co.latency->backend = corpus.latency->backend;
  }
  return co;
}

}  // namespace uopfuzz::fuzz
