#include "report/dashboard.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "report/html.h"
#include "report/plot.h"
#include "report/roofline_view.h"
#include "report/stats.h"

namespace uopfuzz::report {
namespace {

using plot::px;

// Plot geometry, in SVG user units: two plots side by side fill a 1280-pixel window,
// and the viewBox lets a narrower one scale them down instead of cutting them off.
constexpr double kPlotWidth = 560;

bool has_device(const LoadedResults& r, const DeviceKey& d) {
  if (r.context.cases != d.cases) return false;
  for (const auto& b : r.benchmarks)
    if (b.backend == d.backend && b.device == d.device) return true;
  for (const auto& c : r.comparisons)
    if (c.backend == d.backend && c.device == d.device) return true;
  return false;
}

std::string device_label(const DeviceKey& d) {
  return d.backend + " · " + d.device + (d.cases.empty() ? "" : " · " + d.cases);
}

std::string date_of(const RunContext& c) {
  return c.date.substr(0, 10);
}

/// "2026-11-29 17:50" from an ISO 8601 date; the text as it is when it does not parse.
std::string date_time_of(const RunContext& c) {
  if (!c.epoch_seconds || c.date.size() < 16) return c.date;
  return c.date.substr(0, 10) + " " + c.date.substr(11, 5);
}

std::string commit_cell(const RunContext& c) {
  return fmt::format("<code title=\"{}\">{}</code>", html_escape(c.commit),
                     html_escape(short_commit(c.commit)));
}

const char* class_name(SpeedupClass k) {
  switch (k) {
    case SpeedupClass::Faster: return "faster";
    case SpeedupClass::Slower: return "slower";
    case SpeedupClass::Unchanged: return "same";
  }
  return "same";
}

/// The sort key of a date cell (the progressive-enhancement sort reads data-v).
std::string date_key(const RunContext& c) {
  return c.epoch_seconds ? std::to_string(*c.epoch_seconds) : html_escape(c.date);
}

/// An approximate text width for laying out labels (the page's sans-serif at 11 px
/// averages about 6.2 px a character); only used to size margins.
double text_width(const std::string& s, double px_per_char = 6.2) {
  size_t chars = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++chars;  // count UTF-8 code points, not bytes
  return double(chars) * px_per_char;
}

std::string svg_open(const char* cls, const DeviceKey& d, double w, double h,
                     const std::string& label) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot {}\" data-backend=\"{}\" "
      "data-device=\"{}\" data-cases=\"{}\" "
      "viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">\n",
      cls, html_escape(d.backend), html_escape(d.device), html_escape(d.cases), px(w), px(h), px(w),
      px(h), html_escape(label));
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* cls = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", px(x), px(y),
                     anchor, *cls ? fmt::format(" class=\"{}\"", cls) : std::string(),
                     html_escape(s));
}

// ---------------------------------------------------------------------------------------
// Latency: grouped horizontal bars, original vs rewritten, per case, on a log axis.

struct CaseLatency {
  std::string name;
  double original_ns = 0, rewritten_ns = 0;
  bool changed = true;
  std::optional<double> p_value;
};

std::vector<CaseLatency> latencies(const LoadedResults& run, const DeviceKey& d) {
  std::map<std::string, CaseLatency> cases;
  for (const Benchmark& b : run.benchmarks) {
    if (b.backend != d.backend || b.device != d.device || b.measure != "run") continue;
    CaseLatency& c = cases[b.case_name];
    c.name = b.case_name;
    if (b.variant == "original") c.original_ns = b.real_time_ns;
    if (b.variant == "rewritten") c.rewritten_ns = b.real_time_ns;
  }
  // The comparisons carry the same medians; they fill in cases a file lists only there.
  for (const Comparison& cmp : comparisons_of(run, d)) {
    CaseLatency& c = cases[cmp.case_name];
    c.name = cmp.case_name;
    if (c.original_ns <= 0) c.original_ns = cmp.original_ns;
    if (c.rewritten_ns <= 0) c.rewritten_ns = cmp.rewritten_ns;
    c.changed = cmp.rewrite_changed;
    c.p_value = cmp.p_value;
  }
  std::vector<CaseLatency> out;
  for (auto& [name, c] : cases) out.push_back(c);
  return out;
}

std::string latency_svg(const LoadedResults& run, const DeviceKey& d, double tolerance) {
  std::vector<CaseLatency> cases = latencies(run, d);
  double label_w = 60;
  double lo = INFINITY, hi = 0;
  for (const auto& c : cases) {
    label_w = std::max(label_w, text_width(c.name));
    for (double v : {c.original_ns, c.rewritten_ns})
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  label_w = std::min(label_w, 210.0);
  const double row_h = 24, top = 30, bottom = 40;
  const double left = label_w + 12, right = kPlotWidth - 58;
  const double height = top + std::max<size_t>(cases.size(), 1) * row_h + bottom;
  std::string s = svg_open(
      "latency-plot", d, kPlotWidth, height,
      fmt::format("median latency per case on {}, original vs rewritten", device_label(d)));
  // Legend, and the speedup column's header.
  s +=
      fmt::format("<rect x=\"{}\" y=\"8\" width=\"12\" height=\"10\" class=\"orig\"/>\n", px(left));
  s += text(left + 16, 17, "original");
  s += fmt::format("<rect x=\"{}\" y=\"8\" width=\"12\" height=\"10\" class=\"rew\"/>\n",
                   px(left + 82));
  s += text(left + 98, 17, "rewritten");
  s += text(kPlotWidth - 4, 17, "speedup", "end", "muted");
  if (cases.empty() || hi <= 0) {
    s += text((left + right) / 2, top + row_h / 2 + 4, "no run-time measurements", "middle",
              "muted");
    return s + "</svg>\n";
  }
  auto [a, b] = plot::decade_range(lo, hi);
  plot::LogScale x{a, b, left, right};
  const double plot_bottom = top + double(cases.size()) * row_h;
  // Past two decades the 2s and 5s stay as grid lines but lose their labels, which would
  // run into each other.
  const bool label_all = std::log10(b / a) < 2.5;
  for (double t : plot::decade_ticks(a, b)) {
    bool decade = std::abs(std::log10(t) - std::round(std::log10(t))) < 1e-9;
    s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid{3}\"/>\n",
                     px(x(t)), px(top - 4), px(plot_bottom), decade ? "" : " minor");
    if (label_all || decade)
      s += text(x(t), plot_bottom + 14, plot::format_duration(t), "middle", "tick");
  }
  s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>\n", px(left),
                   px(top - 4), px(plot_bottom));
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseLatency& c = cases[i];
    double y = top + double(i) * row_h;
    if (i % 2 == 1)
      s += fmt::format("<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"band\"/>\n",
                       px(y), px(kPlotWidth), px(row_h));
    s += text(left - 8, y + row_h / 2 + 4, c.name, "end");
    const double bar_h = 8;
    for (int v = 0; v < 2; ++v) {
      double ns = v == 0 ? c.original_ns : c.rewritten_ns;
      if (ns <= 0) continue;
      double by = y + 3 + v * (bar_h + 2);
      s += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"{}\"><title>{}: {} "
          "{}</title></rect>\n",
          px(left), px(by), px(std::max(1.0, x(ns) - left)), px(bar_h), v == 0 ? "orig" : "rew",
          html_escape(c.name), v == 0 ? "original" : "rewritten", plot::format_duration(ns));
    }
    Comparison cmp;
    cmp.original_ns = c.original_ns;
    cmp.rewritten_ns = c.rewritten_ns;
    cmp.rewrite_changed = c.changed;
    double sp = speedup_of(cmp);
    std::string tip = c.changed ? "" : " (graph unchanged)";
    s += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"{}\">{}<title>{} → "
        "{}{}</title></text>\n",
        px(kPlotWidth - 4), px(y + row_h / 2 + 4), class_name(classify_speedup(cmp, tolerance)),
        html_escape(c.changed ? plot::format_speedup(sp) : "="),
        plot::format_duration(c.original_ns), plot::format_duration(c.rewritten_ns), tip);
  }
  s += text((left + right) / 2, plot_bottom + 32, "median time of one run (log scale)", "middle",
            "axis-label");
  return s + "</svg>\n";
}

// ---------------------------------------------------------------------------------------
// Speedup: a strip of every case's speedup above a box plot, on a log2 axis.

std::string speedup_svg(const std::vector<Comparison>& comparisons, const DeviceKey& d,
                        double tolerance, const SpeedupSummary& sum) {
  const double height = 132, left = 24, right = kPlotWidth - 24, strip_y = 34, box_y = 70,
               axis_y = 92;
  std::string s = svg_open("speedup-plot", d, kPlotWidth, height,
                           fmt::format("speedup distribution on {}", device_label(d)));
  if (sum.count == 0) {
    s += text(kPlotWidth / 2, 50, "no comparisons", "middle", "muted");
    return s + "</svg>\n";
  }
  auto [a, b] = plot::pow2_range(sum.min, sum.max);
  plot::LogScale x{a, b, left, right};
  for (double t : plot::pow2_ticks(a, b)) {
    s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"12\" y2=\"{1}\" class=\"grid\"/>\n",
                     px(x(t)), px(axis_y));
    s += text(x(t), axis_y + 14, plot::format_pow2_tick(t), "middle", "tick");
  }
  s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"8\" y2=\"{1}\" class=\"one\"/>\n", px(x(1)),
                   px(axis_y));
  s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"axis\"/>\n", px(left),
                   px(right), px(axis_y));
  // The points: spread vertically by a fixed low-discrepancy sequence so equal speedups
  // stay visible and the same input draws the same picture.
  size_t i = 0;
  for (const Comparison& c : comparisons) {
    double v = speedup_of(c);
    if (v <= 0) continue;
    double jitter = std::fmod(double(i++) * 0.618033988749895, 1.0) * 2 - 1;
    s += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" class=\"pt {}\"><title>{}: {}</title></circle>\n",
        px(x(v)), px(strip_y + jitter * 14), class_name(classify_speedup(c, tolerance)),
        html_escape(c.case_name), plot::format_speedup(v));
  }
  // The box: quartiles, median, whiskers to the extremes.
  s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"whisker\"/>\n",
                   px(x(sum.min)), px(x(sum.max)), px(box_y));
  for (double e : {sum.min, sum.max})
    s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"whisker\"/>\n",
                     px(x(e)), px(box_y - 5), px(box_y + 5));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" class=\"box\"/>\n",
                   px(x(sum.q1)), px(box_y - 7), px(std::max(1.0, x(sum.q3) - x(sum.q1))));
  s += fmt::format(
      "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"median\"><title>median "
      "{3}</title></line>\n",
      px(x(sum.median)), px(box_y - 9), px(box_y + 9), plot::format_speedup(sum.median));
  s += text(left, height - 6, "← rewrite slower", "start", "muted");
  s += text(right, height - 6, "rewrite faster →", "end", "muted");
  s += text((left + right) / 2, height - 6, "speedup = original / rewritten (log₂ scale)", "middle",
            "axis-label");
  return s + "</svg>\n";
}

// ---------------------------------------------------------------------------------------
// History: median speedup per bench run of a device, in date order.

std::string history_svg(const std::vector<const LoadedResults*>& runs, const DeviceKey& d,
                        double tolerance) {
  const double height = 210, left = 56, right = kPlotWidth - 24, top = 22, plot_bottom = 150;
  std::string s = svg_open("history-plot", d, kPlotWidth, height,
                           fmt::format("median speedup per run on {}", device_label(d)));
  std::vector<double> medians;
  for (const LoadedResults* r : runs)
    medians.push_back(summarize_speedups(comparisons_of(*r, d), tolerance).median);
  double lo = INFINITY, hi = 0;
  for (double m : medians)
    if (m > 0) lo = std::min(lo, m), hi = std::max(hi, m);
  auto [a, b] = plot::pow2_range(hi > 0 ? lo : 1, hi > 0 ? hi : 1);
  plot::LogScale y{a, b, plot_bottom, top};
  for (double t : plot::pow2_ticks(a, b)) {
    s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/>\n",
                     px(left), px(right), px(y(t)));
    s += text(left - 6, y(t) + 4, plot::format_pow2_tick(t), "end", "tick");
  }
  s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"one\"/>\n", px(left),
                   px(right), px(y(1)));
  s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>\n", px(left),
                   px(top), px(plot_bottom));
  s += fmt::format(
      "<text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\" "
      "class=\"axis-label\">"
      "median speedup</text>\n",
      px((top + plot_bottom) / 2));
  const size_t n = runs.size();
  auto xpos = [&](size_t i) {
    return n == 1 ? (left + right) / 2
                  : left + 30 + double(i) * (right - left - 60) / double(n - 1);
  };
  // Label every k-th run so commit labels (about 60 units wide) never overlap.
  size_t every = std::max<size_t>(1, size_t(std::ceil(70.0 * double(n) / (right - left))));
  std::string line;
  for (size_t i = 0; i < n; ++i)
    if (medians[i] > 0)
      line += fmt::format("{}{},{}", line.empty() ? "" : " ", px(xpos(i)), px(y(medians[i])));
  if (!line.empty()) s += fmt::format("<polyline points=\"{}\" class=\"trend\"/>\n", line);
  for (size_t i = 0; i < n; ++i) {
    const RunContext& c = runs[i]->context;
    double cx = xpos(i);
    if (medians[i] > 0) {
      s += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"5\" class=\"point\"><title>{} {}: median "
          "{}</title></circle>\n",
          px(cx), px(y(medians[i])), html_escape(date_time_of(c)),
          html_escape(short_commit(c.commit)), plot::format_speedup(medians[i]));
      s += text(cx, y(medians[i]) - 9, plot::format_speedup(medians[i]), "middle", "value");
    }
    if (i % every == 0 || i + 1 == n) {
      s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>\n",
                       px(cx), px(plot_bottom), px(plot_bottom + 4));
      s += text(cx, plot_bottom + 17, short_commit(c.commit), "middle", "tick mono");
      s += text(cx, plot_bottom + 30, date_of(c), "middle", "tick");
    }
  }
  s += text((left + right) / 2, height - 4, "bench runs in date order (commit, date)", "middle",
            "axis-label");
  return s + "</svg>\n";
}

// ---------------------------------------------------------------------------------------
// Sections.

std::string devices_cell(const RunContext& c) {
  std::string s;
  for (const Device& d : c.devices)
    s += fmt::format("{}<span class=\"tag\">{}</span> {}", s.empty() ? "" : "<br>",
                     html_escape(d.backend), html_escape(d.device));
  return s.empty() ? "—" : s;
}

/// The machine line without the host name it usually starts with ("host (cpu, cores)").
std::string machine_detail(const RunContext& c) {
  const std::string& m = c.machine;
  std::string prefix = c.host_name + " (";
  if (!c.host_name.empty() && m.starts_with(prefix) && m.ends_with(")"))
    return m.substr(prefix.size(), m.size() - prefix.size() - 1);
  return m == c.host_name ? "" : m;
}

std::string runs_section(const std::vector<const LoadedResults*>& runs) {
  std::string s =
      "<section id=\"runs\">\n<h2>Runs</h2>\n<p class=\"note\">Every loaded results file, oldest "
      "first.</p>\n"
      "<table "
      "class=\"sortable\">\n<thead><tr><th>File</th><th>Kind</th><th>Date</th><th>Commit</th>"
      "<th>Host / machine</th><th>Devices</th><th>Cases</th><th "
      "class=\"num\">Reps</th></tr></thead>\n<tbody>\n";
  for (const LoadedResults* r : runs) {
    const RunContext& c = r->context;
    bool bench = r->kind == ResultsKind::Bench;
    std::string cases = bench ? (c.cases.empty() ? "—" : html_escape(c.cases))
                              : fmt::format("fuzz: {} graphs in {:.0f} s",
                                            plot::format_count(r->fuzz.graphs), r->fuzz.seconds);
    s += fmt::format(
        "<tr><td><code>{}</code></td><td>{}</td><td class=\"date\" "
        "data-v=\"{}\">{}</td><td>{}</td><td>{}<div class=\"sub\">{}</div></td>"
        "<td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
        html_escape(r->path), bench ? "bench" : "fuzz", date_key(c), html_escape(date_time_of(c)),
        commit_cell(c), html_escape(c.host_name), html_escape(machine_detail(c)), devices_cell(c),
        cases, c.reps ? std::to_string(*c.reps) : "—");
  }
  return s + "</tbody>\n</table>\n</section>\n";
}

std::string latency_section(const std::vector<LoadedResults>& all,
                            const std::vector<DeviceKey>& devices, const DashboardOptions& o) {
  std::string s =
      "<section id=\"latency\">\n<h2>Latency per kernel</h2>\n<p class=\"note\">The latest bench "
      "run of each "
      "device: median time of one run of each case, original graph vs the simplifier's rewrite. "
      "Speedup = original "
      "/ rewritten; \"=\" marks a case the simplifier left unchanged.</p>\n<div class=\"grid\">\n";
  for (const DeviceKey& d : devices) {
    auto runs = runs_of_device(all, d);
    const LoadedResults& latest = *runs.back();
    std::string clock;
    for (const Benchmark& b : latest.benchmarks)
      if (b.backend == d.backend && b.device == d.device && b.measure == "run") clock = b.clock;
    s +=
        fmt::format("<div class=\"card\"><h3>{}</h3><div class=\"sub\">{} · {}{}</div>\n{}</div>\n",
                    html_escape(device_label(d)), html_escape(date_time_of(latest.context)),
                    commit_cell(latest.context),
                    clock.empty() ? "" : fmt::format(" · {} clock", html_escape(clock)),
                    latency_svg(latest, d, o.unchanged_tolerance));
  }
  if (devices.empty()) s += "<p class=\"none\">no bench results</p>\n";
  return s + "</div>\n</section>\n";
}

std::string speedup_section(const std::vector<LoadedResults>& all,
                            const std::vector<DeviceKey>& devices, const DashboardOptions& o) {
  std::string s = fmt::format(
      "<section id=\"speedup\">\n<h2>Speedup distribution</h2>\n<p class=\"note\">Each case's "
      "speedup in the "
      "latest bench run of each device (dots), with quartiles and median (box). Within {:.0f}% of "
      "1× or an "
      "unchanged graph counts as unchanged.</p>\n<div class=\"grid\">\n",
      o.unchanged_tolerance * 100);
  for (const DeviceKey& d : devices) {
    const LoadedResults& latest = *runs_of_device(all, d).back();
    auto comps = comparisons_of(latest, d);
    SpeedupSummary sum = summarize_speedups(comps, o.unchanged_tolerance);
    s += fmt::format(
        "<div class=\"card\"><h3>{}</h3><p class=\"stats\">median <b>{}</b> · <b "
        "class=\"faster\">{} faster</b> · "
        "<b class=\"slower\">{} slower</b> · <b class=\"same\">{} unchanged</b> · n = "
        "{}</p>\n{}</div>\n",
        html_escape(device_label(d)), plot::format_speedup(sum.count ? sum.median : 0), sum.faster,
        sum.slower, sum.unchanged, sum.count, speedup_svg(comps, d, o.unchanged_tolerance, sum));
  }
  if (devices.empty()) s += "<p class=\"none\">no bench results</p>\n";
  return s + "</div>\n</section>\n";
}

std::string case_link(const std::string& path, const DashboardOptions& o) {
  if (path.empty()) return "—";
  return fmt::format("<a href=\"{}\"><code>{}</code></a>", link_to(path, o.output_path),
                     html_escape(path));
}

std::string regressions_section(const std::vector<const LoadedResults*>& runs,
                                const DashboardOptions& o) {
  std::string rows;
  size_t n = 0;
  for (const LoadedResults* r : runs) {
    const RunContext& c = r->context;
    for (const Comparison& cmp : r->comparisons) {
      if (!cmp.confirmed) continue;
      double sp = speedup_of(cmp);
      ++n;
      rows += fmt::format(
          "<tr><td><span class=\"tag\">bench</span></td><td><code>{}</code></td><td>{} · {}</td>"
          "<td class=\"num slower\" data-v=\"{}\">{}</td><td class=\"num\" "
          "data-v=\"{}\">{}</td><td class=\"date\" data-v=\"{}\">{}</td>"
          "<td>{}</td><td>{}</td></tr>\n",
          html_escape(cmp.case_name), html_escape(cmp.backend), html_escape(cmp.device),
          sp > 0 ? 1 / sp : 0, sp > 0 ? plot::format_speedup(1 / sp) : "—", cmp.p_value.value_or(1),
          plot::format_p_value(cmp.p_value), date_key(c), html_escape(date_time_of(c)),
          commit_cell(c), case_link(cmp.corpus_case, o));
    }
    for (const FuzzFinding& f : r->fuzz.new_findings) {
      if (f.kind != "latency") continue;
      ++n;
      // A finding names its backend only; the run's context says which device that was.
      std::string where = html_escape(f.backend);
      for (const Device& d : c.devices)
        if (d.backend == f.backend) where += " · " + html_escape(d.device);
      std::string p = plot::format_p_value(f.latency ? f.latency->p_value : std::nullopt);
      if (f.latency && f.latency->confirm_p_value)
        p += fmt::format("<div class=\"sub\">rerun {}</div>",
                         plot::format_p_value(f.latency->confirm_p_value));
      std::string ratio = f.latency ? plot::format_speedup(f.latency->ratio) : "—";
      if (f.latency && f.latency->confirm_ratio)
        ratio += fmt::format("<div class=\"sub\">rerun {}</div>",
                             plot::format_speedup(*f.latency->confirm_ratio));
      rows += fmt::format(
          "<tr><td><span class=\"tag\">{}</span></td><td>{}</td><td>{}</td>"
          "<td class=\"num slower\" data-v=\"{}\">{}</td><td class=\"num\" "
          "data-v=\"{}\">{}</td><td class=\"date\" data-v=\"{}\">{}</td>"
          "<td>{}</td><td>{}</td></tr>\n",
          f.level == "tensor" ? "fuzz · program" : "fuzz",
          "<code>" + html_escape(f.signature) + "</code>" +
              (f.latency && !f.latency->confirmed
                   ? "<div class=\"sub\">its minimized case did not confirm when re-timed</div>"
                   : ""),
          where, f.latency ? f.latency->ratio : 0, ratio,
          f.latency ? f.latency->p_value.value_or(1) : 1, p, date_key(c),
          html_escape(date_time_of(c)), commit_cell(c), case_link(f.path, o));
    }
  }
  std::string s =
      "<section id=\"regressions\">\n<h2>Confirmed latency regressions</h2>\n<p "
      "class=\"note\">Bench comparisons "
      "whose rewrite was slower on two independent runs, and latency findings of fuzz campaigns "
      "(program: a lowering decision that made a tensor program's whole Program slower). "
      "Slower by = "
      "rewritten / original; p: one-sided Mann-Whitney U.</p>\n";
  if (n == 0) return s + "<p class=\"none\">none</p>\n</section>\n";
  return s +
         "<table class=\"sortable\">\n<thead><tr><th>Source</th><th>Signature / "
         "case</th><th>Backend · device</th>"
         "<th class=\"num\">Slower by</th><th "
         "class=\"num\">p-value</th><th>Date</th><th>Commit</th><th>Case file</th>"
         "</tr></thead>\n<tbody>\n" +
         rows + "</tbody>\n</table>\n</section>\n";
}

std::string history_section(const std::vector<LoadedResults>& all,
                            const std::vector<const LoadedResults*>& runs,
                            const std::vector<DeviceKey>& devices, const DashboardOptions& o) {
  std::string s =
      "<section id=\"history\">\n<h2>History</h2>\n<p class=\"note\">Median speedup of each bench "
      "run, per device, "
      "in date order.</p>\n<div class=\"grid\">\n";
  for (const DeviceKey& d : devices) {
    auto dev_runs = runs_of_device(all, d);
    s += fmt::format("<div class=\"card\"><h3>{}</h3><div class=\"sub\">{} run{}</div>\n{}</div>\n",
                     html_escape(device_label(d)), dev_runs.size(), dev_runs.size() == 1 ? "" : "s",
                     history_svg(dev_runs, d, o.unchanged_tolerance));
  }
  if (devices.empty()) s += "<p class=\"none\">no bench results</p>\n";
  s += "</div>\n<h3 class=\"table-title\">Fuzz campaigns</h3>\n";
  std::string rows;
  for (const LoadedResults* r : runs) {
    if (r->kind != ResultsKind::Fuzz) continue;
    const RunContext& c = r->context;
    const FuzzSummary& f = r->fuzz;
    std::string found;
    for (const FuzzFinding& n : f.new_findings)
      found +=
          fmt::format("{}<code>{}</code>", found.empty() ? "" : "<br>", html_escape(n.signature));
    std::vector<std::string> backends;
    for (const auto& b : f.backends) backends.push_back(html_escape(b));
    rows += fmt::format(
        "<tr><td class=\"date\" data-v=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td "
        "class=\"num\">{:.0f} s</td>"
        "<td class=\"num\" data-v=\"{}\">{}</td><td class=\"num\" data-v=\"{}\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td>{}</td></tr>\n",
        date_key(c), html_escape(date_time_of(c)), commit_cell(c), html_escape(c.host_name),
        fmt::join(backends, ", "), f.seconds, f.graphs, plot::format_count(f.graphs),
        f.graphs_per_second, plot::format_count(std::llround(f.graphs_per_second)), f.findings,
        found.empty() ? "—" : found);
  }
  if (rows.empty()) return s + "<p class=\"none\">no fuzz summaries</p>\n</section>\n";
  return s +
         "<table class=\"sortable\" "
         "id=\"fuzz-runs\">\n<thead><tr><th>Date</th><th>Commit</th><th>Host</th>"
         "<th>Backends</th><th class=\"num\">Time</th><th class=\"num\">Graphs</th><th "
         "class=\"num\">Graphs/s</th>"
         "<th class=\"num\">Findings</th><th>New findings</th></tr></thead>\n<tbody>\n" +
         rows + "</tbody>\n</table>\n</section>\n";
}

constexpr const char* kStyle = R"(
:root { --orig: #a3b1c2; --rew: #2f6fd0; --faster: #2b8a3e; --slower: #d9480f; --same: #7b8794;
        --grid: #e4e8ed; --ink: #1f2933; --muted: #616e7c; --line: #dde3ea; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f6f8; color: var(--ink);
       font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
header { background: #fff; border-bottom: 1px solid var(--line); }
header .inner, main { max-width: 1248px; margin: 0 auto; padding-left: 24px; padding-right: 24px; }
header .inner { padding-top: 16px; padding-bottom: 10px; }
h1 { margin: 0; font-size: 22px; }
header p { margin: 2px 0 6px; color: var(--muted); }
nav a { margin-right: 16px; color: var(--rew); text-decoration: none; font-size: 13px; }
main { padding-bottom: 32px; }
section { margin-top: 22px; }
h2 { font-size: 17px; margin: 0 0 2px; }
h3.table-title { font-size: 14px; margin: 16px 0 6px; }
p.note { color: var(--muted); margin: 0 0 10px; font-size: 13px; }
p.none { color: var(--muted); font-style: italic; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 14px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px 8px; }
.card h3 { font-size: 14px; margin: 0; overflow-wrap: anywhere; }
.sub { color: var(--muted); font-size: 12px; }
.card .sub { margin: 1px 0 4px; }
p.stats { margin: 2px 0 0; font-size: 13px; }
svg.plot { display: block; width: 100%; height: auto; font-size: 11px; }
svg text { fill: var(--ink); }
svg text.tick, svg text.muted { fill: var(--muted); }
svg text.axis-label { fill: var(--muted); font-size: 11.5px; }
svg text.value { font-size: 10.5px; fill: var(--muted); }
svg .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 10.5px; }
svg .grid { stroke: var(--grid); stroke-width: 1; }
svg .grid.minor { stroke: #eef1f4; }
svg .axis { stroke: #9aa5b1; stroke-width: 1; }
svg .one { stroke: #52606d; stroke-width: 1.2; stroke-dasharray: 4 3; }
svg .band { fill: #f7f9fb; }
svg rect.orig { fill: var(--orig); }
svg rect.rew { fill: var(--rew); }
svg text.faster { fill: var(--faster); font-weight: 600; }
svg text.slower { fill: var(--slower); font-weight: 600; }
svg text.same { fill: var(--same); }
svg .pt { stroke: #fff; stroke-width: 1; fill-opacity: 0.9; }
svg .pt.faster { fill: var(--faster); }
svg .pt.slower { fill: var(--slower); }
svg .pt.same { fill: var(--same); }
svg .box { fill: #dbe7f8; stroke: var(--rew); stroke-width: 1.2; }
svg .median { stroke: #1c4f9c; stroke-width: 3; }
svg .whisker { stroke: #52606d; stroke-width: 1.2; }
svg .roof { stroke: var(--slower); stroke-width: 1.5; stroke-dasharray: 5 3; }
svg text.case { font-size: 12px; }
svg .trend { fill: none; stroke: var(--rew); stroke-width: 2; }
svg .point { fill: #fff; stroke: var(--rew); stroke-width: 2.5; }
b.faster { color: var(--faster); }
b.slower, td.slower { color: var(--slower); }
b.same { color: var(--same); }
table { border-collapse: separate; border-spacing: 0; width: 100%; background: #fff; border: 1px solid var(--line);
        border-radius: 8px; font-size: 13px; }
th, td { padding: 6px 10px; text-align: left; border-bottom: 1px solid #edf0f3; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; white-space: nowrap; }
th:first-child { border-top-left-radius: 8px; }
th:last-child { border-top-right-radius: 8px; }
tr:last-child td { border-bottom: 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td.date, td.num .sub { white-space: nowrap; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
a { color: var(--rew); }
.tag { display: inline-block; padding: 0 6px; border-radius: 9px; background: #e6eef9; color: #1c4f9c;
       font-size: 11.5px; }
footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
)";

// Progressive enhancement only: without it the tables are complete, in date order.
constexpr const char* kScript = R"(
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.style.cursor = "pointer";
  th.title = "sort by this column";
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = th.dataset.dir !== "asc";
    th.dataset.dir = asc ? "asc" : "desc";
    var key = function (row) { var c = row.cells[col]; return c.dataset.v !== undefined ? c.dataset.v : c.textContent; };
    Array.from(body.rows).sort(function (a, b) {
      var x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
      var d = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
      return asc ? d : -d;
    }).forEach(function (row) { body.appendChild(row); });
  });
});
)";

std::string now_utc() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(t));
}

}  // namespace

std::vector<DeviceKey> bench_devices(const std::vector<LoadedResults>& runs) {
  std::set<DeviceKey> keys;
  for (const auto& r : runs) {
    for (const auto& b : r.benchmarks) keys.insert({b.backend, b.device, r.context.cases});
    for (const auto& c : r.comparisons) keys.insert({c.backend, c.device, r.context.cases});
  }
  return {keys.begin(), keys.end()};
}

std::vector<DeviceKey> all_devices(const std::vector<LoadedResults>& runs) {
  std::set<DeviceKey> keys;
  for (const auto& r : runs)
    for (const auto& d : r.context.devices) keys.insert({d.backend, d.device, ""});
  for (const auto& k : bench_devices(runs)) keys.insert({k.backend, k.device, ""});
  return {keys.begin(), keys.end()};
}

std::vector<const LoadedResults*> runs_of_device(const std::vector<LoadedResults>& runs,
                                                 const DeviceKey& device) {
  std::vector<const LoadedResults*> out;
  for (const LoadedResults* r : by_date(runs))
    if (r->kind == ResultsKind::Bench && has_device(*r, device)) out.push_back(r);
  return out;
}

std::vector<Comparison> comparisons_of(const LoadedResults& run, const DeviceKey& device) {
  std::vector<Comparison> out;
  for (const Comparison& c : run.comparisons)
    if (c.backend == device.backend && c.device == device.device) out.push_back(c);
  return out;
}

std::string render_dashboard(const std::vector<LoadedResults>& all, const DashboardOptions& o) {
  auto runs = by_date(all);
  auto devices = bench_devices(all);
  size_t bench = 0;
  for (const auto& r : all) bench += r.kind == ResultsKind::Bench;
  std::string generated = o.generated_at.empty() ? now_utc() : o.generated_at;
  std::string first = runs.empty() ? "" : date_of(runs.front()->context);
  std::string last = runs.empty() ? "" : date_of(runs.back()->context);

  std::string s = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<title>{0}</title>\n"
      "<style>{1}</style>\n</head>\n<body>\n<header><div class=\"inner\">\n<h1>{0}</h1>\n"
      "<p>Generated {2} from {3} run{4} ({5} bench, {6} fuzz{7}), {8} device{9}.</p>\n"
      "<nav><a href=\"#runs\">Runs</a><a href=\"#latency\">Latency</a><a "
      "href=\"#speedup\">Speedup</a>"
      "<a href=\"#regressions\">Regressions</a><a "
      "href=\"#history\">History</a><a "
      "href=\"#roofline\">Roofline</a></nav>\n</div></header>\n<main>\n",
      html_escape(o.title), kStyle, html_escape(generated), all.size(), all.size() == 1 ? "" : "s",
      bench, all.size() - bench,
      first.empty() ? "" : fmt::format(", {} to {}", html_escape(first), html_escape(last)),
      all_devices(all).size(), all_devices(all).size() == 1 ? "" : "s");
  s += runs_section(runs);
  s += latency_section(all, devices, o);
  s += speedup_section(all, devices, o);
  s += regressions_section(runs, o);
  s += history_section(all, runs, devices, o);
  s += roofline_section(all);
  s += "<footer>uopfuzz dashboard · the results format: docs/results-format.md</footer>\n</main>\n";
  s += fmt::format("<script>{}</script>\n</body>\n</html>\n", kScript);
  return s;
}

}  // namespace uopfuzz::report
