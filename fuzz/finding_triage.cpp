#include "fuzz/finding_triage.h"

#include <filesystem>

#include "ir/parser.h"
#include "sut/reproducer.h"

namespace uopfuzz::fuzz {

std::string pick_root_causes_path(const std::string& given, const std::string& findings_dir,
                                  const std::string& simplifier) {
  if (!given.empty()) return given;
  std::error_code ec;
  if (!findings_dir.empty() && std::filesystem::exists(root_causes_path(findings_dir), ec))
    return root_causes_path(findings_dir);
  return root_causes_path(fuzz::findings_dir("corpus/findings", simplifier));
}

std::vector<FindingTriage> triage_findings(const std::vector<NewFinding>& findings,
                                           const RootCauses& causes, const TriageOptions& options) {
  std::vector<FindingTriage> out(findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    const NewFinding& nf = findings[i];
    FindingTriage& t = out[i];
    if (const RootCause* c = causes.explain(nf.signature.text(), nf.details)) {
      t.root_cause = c->id;
      t.verdict = c->verdict;
    }
    if (options.emit.empty() || nf.path.empty()) continue;
    ir::Context ctx;
    auto parsed = ir::parse_kernel(ctx, nf.corpus_text);
    if (!parsed.ok()) {
      t.reproducer_error = "the kept case does not parse: " + parsed.error().message;
      continue;
    }
    const std::string script = std::filesystem::path(nf.path).replace_extension(".py").string();
    auto made = sut::emit_tinygrad_reproducer(parsed->kernel, options.external, script);
    if (made.ok())
      t.reproducer = script;
    else
      t.reproducer_error = made.error().message;
  }
  return out;
}

}  // namespace uopfuzz::fuzz
