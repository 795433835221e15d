#include "fuzz/finding_triage.h"

#include <filesystem>

#include "check/pipeline_check.h"
#include "fuzz/corpus_header.h"
#include "ir/parser.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"
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

Result<ir::Kernel> kernel_to_reproduce(ir::Context& ctx, const ir::Kernel& found,
                                       const check::CheckOptions& check) {
  if (!ir::is_tensor_program(found.root)) return found;
  if (check::runs_pipeline(check, found.root)) {
    // Found by the simplifier's whole pipeline: the tensor program itself reproduces it, at
    // the failing seed's inputs, expecting the tensor oracle's outputs there.
    ir::Kernel program = sut::with_explicit_inputs(found);
    ir::Inputs inputs;
    for (const ir::GivenInput& given : program.header.inputs) {
      ir::Buffer b(given.dtype, given.values.size());
      for (size_t i = 0; i < given.values.size(); ++i) b.set(i, given.values[i]);
      inputs.buffers[given.slot] = std::move(b);
    }
    auto run = oracle::eval_tensor_program(program.root, inputs);
    if (!run) return Error{"the tensor oracle cannot run it: " + run.error().message};
    if (run->status != ir::RunStatus::Ok)
      return Error{"the tensor program is undefined at the failing seed's inputs"};
    program.header.outputs.clear();
    for (const auto& [o, buffer] : run->outputs) {
      ir::ExpectedOutput expected{o, {}};
      for (size_t i = 0; i < buffer.size(); ++i) expected.values.push_back(buffer.get(i));
      program.header.outputs.push_back(std::move(expected));
    }
    return program;
  }
  auto corpus = read_corpus_header(found.header);
  if (!corpus) return corpus.error();
  auto program = schedule::lower(ctx, found.root, with_recorded_lowering({}, *corpus));
  if (!program) return Error{"the tensor program does not lower: " + program.error().message};
  check::CheckOptions co = check;
  co.base_seed = found.header.seed.value_or(0);
  co.latency.reset();
  for (const ir::ProgramKernel& k : program->kernels) {
    ir::Kernel kernel{found.header, k.root};
    kernel.header.inputs.clear();  // the program's own data fits its tensors, not this kernel
    kernel.header.outputs.clear();
    if (check::check_kernel(ctx, kernel, co).kind != check::FindingKind::None) return kernel;
  }
  return Error{"none of the kernels the tensor program lowers to shows the finding any more"};
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
    auto kernel = kernel_to_reproduce(ctx, parsed->kernel, options.check);
    if (!kernel) {
      t.reproducer_error = kernel.error().message;
      continue;
    }
    const std::string script = std::filesystem::path(nf.path).replace_extension(".py").string();
    auto made = sut::emit_tinygrad_reproducer(*kernel, options.external, script);
    if (made.ok())
      t.reproducer = script;
    else
      t.reproducer_error = made.error().message;
  }
  return out;
}

}  // namespace uopfuzz::fuzz
