#include "sut/reproducer.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/signature.h"
#include "ir/tensor.h"
#include "oracle/interpreter.h"
#include "sut/external.h"

namespace uopfuzz::sut {
namespace {

namespace fs = std::filesystem;

/// A file in the temporary folder, removed when this goes.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix) {
    std::string pattern = (fs::temp_directory_path() / "uopfuzz-emit-XXXXXX").string() + suffix;
    const int fd = ::mkstemps(pattern.data(), static_cast<int>(suffix.size()));
    if (fd >= 0) {
      ::close(fd);
      path_ = pattern;
    }
  }
  ~TempFile() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bool can_emit_reproducer(const std::string& system) {
  return system == "tinygrad";
}

uint64_t failing_seed(const ir::Kernel& kernel) {
  for (const auto& [key, value] : kernel.header.extra) {
    if (key != "details" || !value.starts_with("seed ")) continue;
    uint64_t seed = 0;
    const char* first = value.data() + 5;
    auto [end, ec] = std::from_chars(first, value.data() + value.size(), seed);
    if (ec == std::errc() && end != first && *end == ':') return seed;
  }
  return kernel.header.seed.value_or(0);
}

ir::Kernel with_explicit_inputs(const ir::Kernel& kernel) {
  ir::Kernel out = kernel;
  std::map<std::string, int64_t> vars(kernel.header.vars.begin(), kernel.header.vars.end());
  const uint64_t seed = failing_seed(kernel);
  const ir::Inputs inputs = ir::make_inputs(kernel, seed, vars);
  out.header.seed = seed;
  out.header.inputs.clear();
  for (const auto& [slot, buffer] : inputs.buffers) {
    ir::GivenInput given{slot, buffer.dtype(), {}};
    for (size_t i = 0; i < buffer.size(); ++i) given.values.push_back(buffer.get(i));
    out.header.inputs.push_back(std::move(given));
  }
  out.header.vars.assign(inputs.vars.begin(), inputs.vars.end());
  return out;
}

Result<ir::Kernel> with_expected_outputs(const ir::Kernel& kernel) {
  ir::Kernel out = with_explicit_inputs(kernel);
  ir::Inputs inputs = ir::make_inputs(out, out.header.seed.value_or(0),
                                      {out.header.vars.begin(), out.header.vars.end()});
  auto run = oracle::run(out.root, inputs);
  if (!run) return Error{"the oracle cannot run the kernel: " + run.error().message};
  if (run->status != ir::RunStatus::Ok)
    return Error{"the kernel is undefined at the failing seed's inputs"};
  out.header.outputs.clear();
  for (const auto& [slot, buffer] : run->outputs) {
    ir::ExpectedOutput expected{slot, {}};
    for (size_t i = 0; i < buffer.size(); ++i) expected.values.push_back(buffer.get(i));
    out.header.outputs.push_back(std::move(expected));
  }
  return out;
}

Result<std::string> emit_tinygrad_reproducer(const ir::Kernel& kernel,
                                             const ExternalOptions& options,
                                             const std::string& out_path) {
  ExternalOptions o = options;
  for (const auto& [key, value] : kernel.header.extra)
    if (key == "simplifier-stage" && value != "-") o.tinygrad_stage = value;
  o.adapter_bugs.clear();  // a reproducer is of tinygrad as it is, never of a planted bug
  TempFile case_file(".uop"), log(".log");
  if (case_file.path().empty() || log.path().empty())
    return Error{"cannot create a temporary file for the case"};
  // A kernel at the pipeline stage runs on tinygrad's devices: its script compares them with
  // the oracle's outputs at the failing seed's inputs (a tensor program brings its own).
  ir::Kernel explicit_case = with_explicit_inputs(kernel);
  if (o.tinygrad_stage == "pipeline" && !ir::is_tensor_program(kernel.root)) {
    auto expected = with_expected_outputs(kernel);
    if (!expected) return expected.error();
    explicit_case = std::move(*expected);
  }
  {
    std::ofstream out(case_file.path());
    out << ir::print_kernel(explicit_case);
    if (!out) return Error{fmt::format("cannot write {}", case_file.path())};
  }
  auto command = tinygrad_command(
      o, fmt::format("--emit {} -o {}", shell_quote(case_file.path()), shell_quote(out_path)));
  if (!command.ok()) return command.error();
  // The adapter's command starts with `exec`: run it in a shell of its own, stderr kept.
  const std::string line =
      fmt::format("( {} ) </dev/null >/dev/null 2>{}", *command, shell_quote(log.path()));
  const int status = std::system(line.c_str());
  if (status == 0) return out_path;
  std::string why = read_text(log.path());
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (const size_t last = why.rfind('\n'); last != std::string::npos) why = why.substr(last + 1);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return Error{fmt::format("the tinygrad adapter could not write a reproducer (exit {}): {}", code,
                           why.empty() ? "it said nothing" : why)};
}

}  // namespace uopfuzz::sut
