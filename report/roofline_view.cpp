#include "report/roofline_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "report/html.h"
#include "report/plot.h"

namespace uopfuzz::report {

namespace {

using plot::px;

constexpr double kWidth = 560;

std::string label_text(double x, double y, const std::string& s, const char* anchor,
                       const char* cls) {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" class=\"{}\">{}</text>\n", px(x),
                     px(y), anchor, cls, html_escape(s));
}

std::string percent(std::optional<double> f) {
  return f ? fmt::format("{:.0f}%", 100 * *f) : "—";
}

/// The (backend, device) pairs suite runs measured, sorted.
std::set<std::pair<std::string, std::string>> suite_devices(
    const std::vector<const LoadedResults*>& runs) {
  std::set<std::pair<std::string, std::string>> out;
  for (const LoadedResults* r : runs)
    for (const SuitePoint& p : r->suite_points) out.insert({p.backend, p.device});
  return out;
}

bool measured(const LoadedResults& r, const std::string& backend, const std::string& device) {
  return std::any_of(r.suite_points.begin(), r.suite_points.end(), [&](const SuitePoint& p) {
    return p.backend == backend && p.device == device;
  });
}

/// Bars of each case's fraction of its bound, original above rewritten, on a linear axis
/// from 0 to at least 100% (the roofline, a dashed line).
std::string fraction_svg(const std::vector<SuitePoint>& points, const std::string& backend,
                         const std::string& device) {
  const double label_w = 190, left = label_w + 8, right = kWidth - 50, top = 24, row = 34;
  const double height = top + row * static_cast<double>(points.size()) + 34;
  double hi = 1;
  for (const SuitePoint& p : points)
    hi = std::max({hi, p.original.fraction.value_or(0), p.rewritten.fraction.value_or(0)});
  hi = std::ceil(hi * 4) / 4;
  auto x = [&](double f) { return left + (right - left) * std::clamp(f, 0.0, hi) / hi; };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot roofline-plot\" "
      "data-backend=\"{}\" data-device=\"{}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"fraction of the roofline per case on {}\">\n",
      html_escape(backend), html_escape(device), px(kWidth), px(height), px(kWidth), px(height),
      html_escape(device));
  for (double t = 0; t <= hi + 1e-9; t += hi > 2 ? 0.5 : 0.25) {
    s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/>\n",
                     px(x(t)), px(top - 6), px(height - 30));
    s += label_text(x(t), height - 16, fmt::format("{:.0f}%", 100 * t), "middle", "tick");
  }
  s += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"roof\"/>\n", px(x(1)),
                   px(top - 10), px(height - 30));
  s += label_text(x(1), top - 12, "roofline", "middle", "axis-label");
  for (size_t i = 0; i < points.size(); ++i) {
    const SuitePoint& p = points[i];
    const double y = top + row * static_cast<double>(i);
    s += label_text(label_w, y + 13, p.case_name, "end", "case");
    s += label_text(label_w, y + 26, fmt::format("n={} · {}", plot::format_count(p.size), p.bound),
                    "end", "tick");
    for (const auto& [cls, v, dy] :
         {std::tuple{"orig", &p.original, 3.0}, std::tuple{"rew", &p.rewritten, 16.0}}) {
      const double f = v->fraction.value_or(0);
      s += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"11\" class=\"{}\" "
          "data-fraction=\"{}\"><title>{} {}: {} of the roofline ({:.3g} GB/s, {:.3g} "
          "GOP/s)</title></rect>\n",
          px(left), px(y + dy), px(std::max(0.0, x(f) - left)), cls,
          v->fraction ? fmt::format("{:.4f}", f) : "", html_escape(p.case_name),
          std::string(cls) == "orig" ? "original" : "rewritten", percent(v->fraction), v->gbps,
          v->gops);
      s += label_text(x(f) + 4, y + dy + 9, percent(v->fraction), "start", "value");
    }
  }
  s +=
      label_text((left + right) / 2, height - 2,
                 "fraction of the bound (grey: original, blue: rewritten)", "middle", "axis-label");
  return s + "</svg>\n";
}

/// The median fraction (rewritten) over the cases at their largest size, per suite run.
std::string trend_svg(const std::vector<const LoadedResults*>& runs, const std::string& backend,
                      const std::string& device) {
  const double height = 190, left = 56, right = kWidth - 24, top = 20, bottom = 140;
  std::vector<std::pair<const LoadedResults*, double>> medians;
  double hi = 1;
  for (const LoadedResults* r : runs) {
    std::vector<double> f;
    for (const SuitePoint& p : largest_points(*r, backend, device))
      if (p.rewritten.fraction) f.push_back(*p.rewritten.fraction);
    if (f.empty()) continue;
    std::sort(f.begin(), f.end());
    medians.push_back({r, f[f.size() / 2]});
    hi = std::max(hi, f[f.size() / 2]);
  }
  auto y = [&](double f) { return bottom - (bottom - top) * f / hi; };
  const size_t n = medians.size();
  auto xpos = [&](size_t i) {
    return n <= 1 ? (left + right) / 2
                  : left + 30 +
                        static_cast<double>(i) * (right - left - 60) / static_cast<double>(n - 1);
  };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot roofline-history\" "
      "data-backend=\"{}\" data-device=\"{}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"median fraction of the roofline per run on {}\">\n",
      html_escape(backend), html_escape(device), px(kWidth), px(height), px(kWidth), px(height),
      html_escape(device));
  for (double t = 0; t <= hi + 1e-9; t += 0.25) {
    s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/>\n",
                     px(left), px(right), px(y(t)));
    s += label_text(left - 6, y(t) + 4, fmt::format("{:.0f}%", 100 * t), "end", "tick");
  }
  std::string line;
  for (size_t i = 0; i < n; ++i)
    line += fmt::format("{}{},{}", line.empty() ? "" : " ", px(xpos(i)), px(y(medians[i].second)));
  if (!line.empty()) s += fmt::format("<polyline points=\"{}\" class=\"trend\"/>\n", line);
  for (size_t i = 0; i < n; ++i) {
    const RunContext& c = medians[i].first->context;
    s += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"5\" class=\"point\"><title>{}: median "
        "{}</title></circle>\n",
        px(xpos(i)), px(y(medians[i].second)), html_escape(short_commit(c.commit)),
        percent(medians[i].second));
    s += label_text(xpos(i), bottom + 16, short_commit(c.commit), "middle", "tick mono");
    s += label_text(xpos(i), bottom + 29, c.date.substr(0, 10), "middle", "tick");
  }
  s += label_text((left + right) / 2, height - 4,
                  "median fraction of the roofline (rewritten), suite runs by commit", "middle",
                  "axis-label");
  return s + "</svg>\n";
}

/// The "ours vs tinygrad's lowering" cell: both times and each side's kernels and
/// intermediate buffers, and ours/theirs (sorted by it); a dash where there is none.
std::string other_lowering_cell(const SuitePoint& p) {
  if (!p.other_lowering) return "<td class=\"num\" data-v=\"0\">–</td>";
  const OtherLowering& o = *p.other_lowering;
  return fmt::format(
      "<td class=\"num other-lowering{}\" data-v=\"{}\" title=\"ours/{} median time\">ours "
      "{:.3g} µs ({} kernels, {} buffers) vs {} {:.3g} µs ({} kernels, {} buffers): {:.2f}×</td>",
      o.ratio > 1 ? " slower" : "", o.ratio, html_escape(o.simplifier), o.ours_ns / 1e3,
      o.kernels_ours, o.intermediates_ours, html_escape(o.simplifier), o.theirs_ns / 1e3,
      o.kernels_theirs, o.intermediates_theirs, o.ratio);
}

}  // namespace

std::vector<SuitePoint> largest_points(const LoadedResults& run, const std::string& backend,
                                       const std::string& device) {
  std::vector<SuitePoint> out;
  std::map<std::string, size_t> at;
  for (const SuitePoint& p : run.suite_points) {
    if (p.backend != backend || p.device != device) continue;
    auto it = at.find(p.case_name);
    if (it == at.end()) {
      at[p.case_name] = out.size();
      out.push_back(p);
    } else if (p.size > out[it->second].size) {
      out[it->second] = p;
    }
  }
  return out;
}

std::string roofline_section(const std::vector<LoadedResults>& all) {
  std::string s =
      "<section id=\"roofline\">\n<h2>Roofline</h2>\n<p class=\"note\">Suite runs (<code>uopfuzz "
      "bench --suite real</code>): each case's time as a fraction of the least time its "
      "device allows, the larger of bytes / measured copy bandwidth and operations / measured "
      "multiply-add rate (both measured in the same run, by kernels of the same backend). "
      "Bars: the latest run, each case at its largest size; original grey, rewritten "
      "blue.</p>\n";
  std::vector<const LoadedResults*> runs;
  for (const LoadedResults* r : by_date(all))
    if (r->kind == ResultsKind::Bench && !r->suite_preset.empty()) runs.push_back(r);
  if (runs.empty()) return s + "<p class=\"none\">no suite results</p>\n</section>\n";
  const auto devices = suite_devices(runs);
  s += "<div class=\"grid\">\n";
  for (const auto& [backend, device] : devices) {
    const LoadedResults* latest = nullptr;
    for (const LoadedResults* r : runs)
      if (measured(*r, backend, device)) latest = r;
    std::string roof = "roofline not measured";
    for (const RooflineRow& row : latest->roofline)
      if (row.backend == backend && row.device == device && row.gbps && row.gops)
        roof = fmt::format("copy {:.3g} GB/s · multiply-add {:.3g} GOP/s", *row.gbps, *row.gops);
    s += fmt::format(
        "<div class=\"card\"><h3>{} · {}</h3><div class=\"sub\">{} · {} preset, {} {}</div>\n{}{}"
        "</div>\n",
        html_escape(backend), html_escape(device), html_escape(roof),
        html_escape(latest->suite_preset), html_escape(short_commit(latest->context.commit)),
        html_escape(latest->context.date.substr(0, 10)),
        fraction_svg(largest_points(*latest, backend, device), backend, device),
        trend_svg(runs, backend, device));
  }
  s += "</div>\n<h3 class=\"table-title\">Every case and size (latest suite run per "
       "device)</h3>\n<table class=\"sortable\" id=\"roofline-points\">\n<thead><tr>"
       "<th>Case</th><th>Device</th><th class=\"num\">Size</th><th>Bound</th>"
       "<th class=\"num\">GB/s</th><th class=\"num\">GOP/s</th><th class=\"num\">Roofline "
       "(original)</th><th class=\"num\">Roofline (rewritten)</th><th "
       "class=\"num\">Speedup</th><th class=\"num\">Kernels</th><th class=\"num\">Ours vs "
       "tinygrad's lowering</th></tr></thead>\n<tbody>\n";
  for (const auto& [backend, device] : devices) {
    const LoadedResults* latest = nullptr;
    for (const LoadedResults* r : runs)
      if (measured(*r, backend, device)) latest = r;
    for (const SuitePoint& p : latest->suite_points) {
      if (p.backend != backend || p.device != device) continue;
      s += fmt::format(
          "<tr><td>{}</td><td>{} · {}</td><td class=\"num\" data-v=\"{}\">{}</td><td>{}</td>"
          "<td class=\"num\">{:.3g}</td><td class=\"num\">{:.3g}</td><td class=\"num "
          "fraction\" data-v=\"{}\">{}</td><td class=\"num fraction\" data-v=\"{}\">{}</td><td "
          "class=\"num{}\" data-v=\"{}\">{}</td><td class=\"num\">{}</td>{}</tr>\n",
          html_escape(p.case_name), html_escape(backend), html_escape(device), p.size,
          plot::format_count(p.size), html_escape(p.bound), p.rewritten.gbps, p.rewritten.gops,
          p.original.fraction.value_or(0), percent(p.original.fraction),
          p.rewritten.fraction.value_or(0), percent(p.rewritten.fraction),
          p.confirmed ? " slower" : "", p.speedup, plot::format_speedup(p.speedup),
          p.form == "program" ? fmt::format("{} → {}", p.kernels_original, p.kernels_rewritten)
                              : std::string("1"),
          other_lowering_cell(p));
    }
  }
  s += "</tbody>\n</table>\n<h3 class=\"table-title\">Regressions across sizes</h3>\n";
  std::string rows;
  for (const LoadedResults* r : runs)
    for (const SizeRegression& g : r->size_regressions)
      rows += fmt::format(
          "<tr><td>{}</td><td>{} · {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num slower\">{:.2f}×</td><td>{}</td></tr>\n",
          html_escape(g.case_name), html_escape(g.backend), html_escape(g.device),
          plot::format_count(g.found_at), plot::format_count(g.smallest), g.ratio,
          html_escape(short_commit(r->context.commit)));
  if (rows.empty())
    return s + "<p class=\"none\">no confirmed regression at any size</p>\n</section>\n";
  return s +
         "<table id=\"size-regressions\">\n<thead><tr><th>Case</th><th>Device</th><th "
         "class=\"num\">Confirmed at</th><th class=\"num\">Smallest size</th><th "
         "class=\"num\">Rewritten/original</th><th>Commit</th></tr></thead>\n<tbody>\n" +
         rows + "</tbody>\n</table>\n</section>\n";
}

}  // namespace uopfuzz::report
