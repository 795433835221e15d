// uopfuzz corpus merge DIR... -o DIR: corpora from many machines (campaign shards, nightly
// runs) as one, a case per signature.

#include <fmt/format.h>

#include "cli/command.h"
#include "fuzz/corpus_merge.h"

namespace uopfuzz::cli {
namespace {

struct MergeFlags {
  std::vector<std::string> sources;
  std::string output;
};

int run_merge(const MergeFlags& f) {
  auto st = fuzz::merge_corpora(f.sources, f.output);
  if (!st) {
    fmt::print(stderr, "error: {}\n", st.error().message);
    return kExitBadInput;
  }
  fmt::print(
      "corpus merge: {} case(s) read, {} signature(s) in {}: {} written, {} already there, {} "
      "larger case(s) removed\n",
      st->cases_read, st->signatures, f.output, st->written, st->unchanged, st->removed);
  return kExitOk;
}

}  // namespace

Action add_corpus(CLI::App& cmd, Invocation&) {
  cmd.require_subcommand(1);
  CLI::App* merge = cmd.add_subcommand(
      "merge",
      "Union corpora into one: for each signature the case with the fewest nodes; atomic "
      "writes; merging again changes nothing; safe while campaigns still write the sources");
  auto f = std::make_shared<MergeFlags>();
  merge
      ->add_option("dirs", f->sources,
                   "corpus directories (each with its subfolders, e.g. tinygrad/)")
      ->required()
      ->check(CLI::ExistingDirectory);
  merge
      ->add_option("-o,--output", f->output,
                   "the merged corpus (created if needed; may be one of the sources)")
      ->required();
  return [f, merge]() -> int {
    if (merge->parsed()) return run_merge(*f);
    return kExitBadInput;
  };
}

}  // namespace uopfuzz::cli
