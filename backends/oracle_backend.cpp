// The oracle (oracle::Program) seen through the Backend interface.

#include <chrono>
#include <memory>

#include "backends/backend.h"
#include "ir/dtype.h"
#include "ir/ops.h"
#include "oracle/interpreter.h"

namespace uopfuzz::backends {
namespace {

class OracleKernel final : public Kernel {
 public:
  explicit OracleKernel(oracle::Program p) : p_(std::move(p)) {}
  Result<ir::RunOutput> run(const ir::Inputs& inputs, const RunOptions& options) override {
    oracle::RunOptions o;
    o.max_steps = options.max_steps;
    o.observe_values = options.observe_values;
    return p_.run(inputs, o);
  }
  Result<std::vector<double>> time(const ir::Inputs& inputs, int reps,
                                   const RunOptions& options) override {
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto r = run(inputs, options);
      if (!r) return r.error();
      samples.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return samples;
  }

 private:
  oracle::Program p_;
};

class OracleBackend final : public Backend {
 public:
  OracleBackend() {
    caps_.dtypes = ir::all_dtypes();
    caps_.quantized = true;
    for (int i = 0; i < ir::kOpCount; ++i) caps_.ops.push_back(static_cast<ir::Op>(i));
    caps_.max_buffer_elements = int64_t{1} << 28;
    caps_.notes = "the executable form of SEMANTICS.md";
  }
  std::string_view name() const override { return "oracle"; }
  Result<DeviceDescription> device() override {
    return DeviceDescription{"reference interpreter (host CPU)", "uopfuzz oracle", "", "", "cpu"};
  }
  const Capabilities& caps() const override { return caps_; }
  Result<std::shared_ptr<Kernel>> compile(ir::UOp root, const CompileOptions&) override {
    auto p = oracle::Program::compile(root);
    if (!p) return p.error();
    return std::shared_ptr<Kernel>(std::make_shared<OracleKernel>(std::move(p.value())));
  }

 private:
  Capabilities caps_;
};

}  // namespace

// Declared by the registry from backends.def.
std::unique_ptr<Backend> make_oracle_backend() {
  return std::make_unique<OracleBackend>();
}

}  // namespace uopfuzz::backends
