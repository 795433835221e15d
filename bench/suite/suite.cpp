#include "bench/suite/suite.h"

#include <fmt/format.h>

#include <algorithm>

namespace uopfuzz::bench::suite {

namespace {

/// The row length of the row-wise cases, and the table of the embedding lookup.
constexpr int64_t kRow = 1024, kPitch = 1040, kTableRows = 100000, kEmbedDim = 64, kWindow = 16;

/// .uop text, one node a line; the header names the case and its size.
class Text {
 public:
  Text(std::string_view name, int64_t n) {
    out_ = fmt::format("# {} at size {} (bench/suite/cases.def)\n@name {}\n@expect ok\n@seed 1\n",
                       name, n, name);
  }
  /// Appends the node line `%name = body`.
  void operator()(std::string_view name, std::string_view body) {
    out_ += fmt::format("%{} = {}\n", name, body);
  }
  std::string str() const { return out_; }

 private:
  std::string out_;
};

std::string stream_axpy(int64_t n) {
  Text t("stream_axpy", n);
  t("out", fmt::format("PARAM slot=0 size={} out : float32", n));
  t("x", fmt::format("PARAM slot=1 size={} in : float32", n));
  t("y", fmt::format("PARAM slot=2 size={} in : float32", n));
  t("n", fmt::format("CONST {} : index", n));
  t("i", "RANGE %n axis=0 LOOP : index");
  t("four", "CONST 4 : index");
  t("q", "FLOORDIV %i %four : index");
  t("q4", "MUL %q %four : index");
  t("r", "FLOORMOD %i %four : index");
  t("xa", "ADD %q4 %r : index");
  t("xi", "INDEX %x %xa : float32");
  t("xv", "LOAD %xi : float32");
  t("yi", "INDEX %y %i : float32");
  t("yv", "LOAD %yi : float32");
  t("two", "CONST 2 : float32");
  t("m", "MUL %xv %two : float32");
  t("s", "ADD %m %yv : float32");
  t("oi", "INDEX %out %i : float32");
  t("st", "STORE %oi %s : void");
  t("e", "END %st %i : void");
  t("k", "SINK %e : void");
  return t.str();
}

/// One reduce over both axes of a [n/kRow, kRow] view whose rows are `pitch` apart.
std::string reduce_full(std::string_view name, int64_t n, std::string_view op, int64_t pitch) {
  const int64_t rows = n / kRow;
  Text t(name, n);
  t("out", "PARAM slot=0 size=1 out : float32");
  t("x", fmt::format("PARAM slot=1 size={} in : float32", rows * pitch));
  t("zero", "CONST 0 : index");
  t("oi", "INDEX %out %zero : float32");
  t("rows", fmt::format("CONST {} : index", rows));
  t("r", "RANGE %rows axis=0 REDUCE : index");
  t("cols", fmt::format("CONST {} : index", kRow));
  t("c", "RANGE %cols axis=1 REDUCE : index");
  t("pitch", fmt::format("CONST {} : index", pitch));
  t("base", "MUL %r %pitch : index");
  t("a", "ADD %base %c : index");
  t("xi", "INDEX %x %a : float32");
  t("xv", "LOAD %xi : float32");
  t("red", fmt::format("REDUCE %xv %r %c op={} : float32", op));
  t("st", "STORE %oi %red : void");
  t("k", "SINK %st : void");
  return t.str();
}

/// One output per row of a [n/kRow, kRow] tensor; `scale` multiplies the result (mean).
std::string reduce_rows(std::string_view name, int64_t n, std::string_view op,
                        std::optional<double> scale) {
  const int64_t rows = n / kRow;
  Text t(name, n);
  t("out", fmt::format("PARAM slot=0 size={} out : float32", rows));
  t("x", fmt::format("PARAM slot=1 size={} in : float32", n));
  t("rows", fmt::format("CONST {} : index", rows));
  t("r", "RANGE %rows axis=0 LOOP : index");
  t("oi", "INDEX %out %r : float32");
  t("cols", fmt::format("CONST {} : index", kRow));
  t("c", "RANGE %cols axis=1 REDUCE : index");
  t("base", "MUL %r %cols : index");
  t("a", "ADD %base %c : index");
  t("xi", "INDEX %x %a : float32");
  t("xv", "LOAD %xi : float32");
  t("red", fmt::format("REDUCE %xv %c op={} : float32", op));
  std::string result = "red";
  if (scale) {
    t("scale", fmt::format("CONST {} : float32", *scale));
    t("scaled", "MUL %red %scale : float32");
    result = "scaled";
  }
  t("st", fmt::format("STORE %oi %{} : void", result));
  t("e", "END %st %r : void");
  t("k", "SINK %e : void");
  return t.str();
}

std::string softmax_rows(int64_t n) {
  const std::string row = fmt::format("float32[{},{}]", n / kRow, kRow);
  const std::string col = fmt::format("float32[{},1]", n / kRow);
  Text t("softmax_rows", n);
  t("x", fmt::format("PARAM slot=0 in : {}", row));
  t("m", fmt::format("REDUCE_AXIS %x op=MAX axes=[1] : {}", col));
  t("me", fmt::format("EXPAND %m : {}", row));
  t("d", fmt::format("SUB %x %me : {}", row));
  t("log2e", fmt::format("CONST 1.4426950408889634 : {}", row));
  t("s", fmt::format("MUL %d %log2e : {}", row));
  t("e", fmt::format("EXP2 %s : {}", row));
  t("sum", fmt::format("REDUCE_AXIS %e op=ADD axes=[1] : {}", col));
  t("inv", fmt::format("RECIPROCAL %sum : {}", col));
  t("ie", fmt::format("EXPAND %inv : {}", row));
  t("y", fmt::format("MUL %e %ie : {}", row));
  t("out", "REALIZE %y : void");
  return t.str();
}

std::string layernorm_rows(int64_t n) {
  const std::string row = fmt::format("float32[{},{}]", n / kRow, kRow);
  const std::string col = fmt::format("float32[{},1]", n / kRow);
  Text t("layernorm_rows", n);
  t("x", fmt::format("PARAM slot=0 in : {}", row));
  t("s", fmt::format("REDUCE_AXIS %x op=ADD axes=[1] : {}", col));
  t("inv_n", fmt::format("CONST {} : {}", 1.0 / kRow, col));
  t("mean", fmt::format("MUL %s %inv_n : {}", col));
  t("me", fmt::format("EXPAND %mean : {}", row));
  t("d", fmt::format("SUB %x %me : {}", row));
  t("d2", fmt::format("MUL %d %d : {}", row));
  t("v", fmt::format("REDUCE_AXIS %d2 op=ADD axes=[1] : {}", col));
  t("var", fmt::format("MUL %v %inv_n : {}", col));
  t("eps", fmt::format("CONST 1e-05 : {}", col));
  t("ve", fmt::format("ADD %var %eps : {}", col));
  t("sd", fmt::format("SQRT %ve : {}", col));
  t("inv", fmt::format("RECIPROCAL %sd : {}", col));
  t("ie", fmt::format("EXPAND %inv : {}", row));
  t("y", fmt::format("MUL %d %ie : {}", row));
  t("out", "REALIZE %y : void");
  return t.str();
}

std::string embedding_gather(int64_t n) {
  const int64_t tokens = n / kEmbedDim;
  Text t("embedding_gather", n);
  t("out", fmt::format("PARAM slot=0 size={} out : float32", n));
  t("idx", fmt::format("PARAM slot=1 size={} in vmin=0 vmax={} : int32", tokens, kTableRows - 1));
  t("w", fmt::format("PARAM slot=2 size={} in : float32", kTableRows * kEmbedDim));
  t("tokens", fmt::format("CONST {} : index", tokens));
  t("t", "RANGE %tokens axis=0 LOOP : index");
  t("dim", fmt::format("CONST {} : index", kEmbedDim));
  t("d", "RANGE %dim axis=1 LOOP : index");
  t("ii", "INDEX %idx %t : int32");
  t("iv", "LOAD %ii : int32");
  t("row", "CAST %iv : index");
  t("wrow", "MUL %row %dim : index");
  t("wa", "ADD %wrow %d : index");
  t("wi", "INDEX %w %wa : float32");
  t("wv", "LOAD %wi : float32");
  t("obase", "MUL %t %dim : index");
  t("oa", "ADD %obase %d : index");
  t("oi", "INDEX %out %oa : float32");
  t("st", "STORE %oi %wv : void");
  t("e", "END %st %t %d : void");
  t("k", "SINK %e : void");
  return t.str();
}

std::string matmul(int64_t n) {
  Text t("matmul", n);
  t("out", fmt::format("PARAM slot=0 size={} out : float32", n * n));
  t("a", fmt::format("PARAM slot=1 size={} in : float32", n * n));
  t("b", fmt::format("PARAM slot=2 size={} in : float32", n * n));
  t("nn", fmt::format("CONST {} : index", n * n));
  t("ij", "RANGE %nn axis=0 LOOP : index");
  t("n", fmt::format("CONST {} : index", n));
  t("i", "FLOORDIV %ij %n : index");
  t("j", "FLOORMOD %ij %n : index");
  t("k", "RANGE %n axis=1 REDUCE : index");
  t("arow", "MUL %i %n : index");
  t("aa", "ADD %arow %k : index");
  t("ai", "INDEX %a %aa : float32");
  t("av", "LOAD %ai : float32");
  t("brow", "MUL %k %n : index");
  t("ba", "ADD %brow %j : index");
  t("bi", "INDEX %b %ba : float32");
  t("bv", "LOAD %bi : float32");
  t("p", "MUL %av %bv : float32");
  t("acc", "REDUCE %p %k op=ADD : float32");
  t("oi", "INDEX %out %ij : float32");
  t("st", "STORE %oi %acc : void");
  t("e", "END %st %ij : void");
  t("sink", "SINK %e : void");
  return t.str();
}

std::string window_sum(int64_t n) {
  Text t("window_sum16", n);
  t("out", fmt::format("PARAM slot=0 size={} out : float32", n));
  t("x", fmt::format("PARAM slot=1 size={} in : float32", n + kWindow - 1));
  t("n", fmt::format("CONST {} : index", n));
  t("i", "RANGE %n axis=0 LOOP : index");
  t("win", fmt::format("CONST {} : index", kWindow));
  t("w", "RANGE %win axis=1 REDUCE : index");
  t("a", "ADD %i %w : index");
  t("xi", "INDEX %x %a : float32");
  t("xv", "LOAD %xi : float32");
  t("s", "REDUCE %xv %w op=ADD : float32");
  t("oi", "INDEX %out %i : float32");
  t("st", "STORE %oi %s : void");
  t("e", "END %st %i : void");
  t("k", "SINK %e : void");
  return t.str();
}

std::string split_reduce(int64_t n) {
  Text t("split_reduce", n);
  t("x", fmt::format("PARAM slot=0 in : float32[{}]", n));
  t("s", "REDUCE_AXIS %x op=ADD axes=[0] : float32[1]");
  t("out", "REALIZE %s : void");
  return t.str();
}

std::string requantize(int64_t n) {
  Text t("requantize", n);
  t("x", fmt::format("PARAM slot=0 size={} in : qint8<0.03,0>", n));
  t("out", fmt::format("PARAM slot=1 size={} out : qint8<0.12,0>", n));
  t("n", fmt::format("CONST {} : index", n));
  t("i", "RANGE %n axis=0 LOOP : index");
  t("xi", "INDEX %x %i : qint8<0.03,0>");
  t("xv", "LOAD %xi : qint8<0.03,0>");
  t("q", "REQUANTIZE %xv : qint8<0.12,0>");
  t("oi", "INDEX %out %i : qint8<0.12,0>");
  t("st", "STORE %oi %q : void");
  t("e", "END %st %i : void");
  t("k", "SINK %e : void");
  return t.str();
}

const std::vector<SuiteCase>& all_cases() {
  static const std::vector<SuiteCase> rows = {
#define SUITE_CASE(id, name, form, quantum, small, full, bytes, ops, what) \
  {CaseId::id, name, Form::form, quantum, small, full, what},
#include "bench/suite/cases.def"
#undef SUITE_CASE
  };
  return rows;
}

}  // namespace

std::optional<Preset> parse_preset(std::string_view name) {
  if (name == "tiny") return Preset::Tiny;
  if (name == "small") return Preset::Small;
  if (name == "full") return Preset::Full;
  return std::nullopt;
}

std::string_view preset_name(Preset preset) {
  switch (preset) {
    case Preset::Tiny: return "tiny";
    case Preset::Small: return "small";
    case Preset::Full: return "full";
  }
  return "?";
}

std::vector<int64_t> SuiteCase::sizes(Preset preset) const {
  switch (preset) {
    case Preset::Tiny: return {small.begin(), small.begin() + std::min<size_t>(2, small.size())};
    case Preset::Small: return small;
    case Preset::Full: return full;
  }
  return {};
}

int64_t SuiteCase::bytes(int64_t n) const {
  switch (id) {
#define SUITE_CASE(id, name, form, quantum, small, full, bytes, ops, what) \
  case CaseId::id:                                                         \
    return bytes;
#include "bench/suite/cases.def"
#undef SUITE_CASE
  }
  return 0;
}

int64_t SuiteCase::ops(int64_t n) const {
  switch (id) {
#define SUITE_CASE(id, name, form, quantum, small, full, bytes, ops, what) \
  case CaseId::id:                                                         \
    return ops;
#include "bench/suite/cases.def"
#undef SUITE_CASE
  }
  return 0;
}

std::string SuiteCase::text(int64_t n) const {
  switch (id) {
    case CaseId::StreamAxpy: return stream_axpy(n);
    case CaseId::ReduceSumFull: return reduce_full(name, n, "ADD", kRow);
    case CaseId::ReduceMaxFull: return reduce_full(name, n, "MAX", kRow);
    case CaseId::ReduceSumPitched: return reduce_full(name, n, "ADD", kPitch);
    case CaseId::ReduceSumRows: return reduce_rows(name, n, "ADD", std::nullopt);
    case CaseId::ReduceMaxRows: return reduce_rows(name, n, "MAX", std::nullopt);
    case CaseId::ReduceMeanRows: return reduce_rows(name, n, "ADD", 1.0 / kRow);
    case CaseId::SoftmaxRows: return softmax_rows(n);
    case CaseId::LayernormRows: return layernorm_rows(n);
    case CaseId::EmbeddingGather: return embedding_gather(n);
    case CaseId::Matmul: return matmul(n);
    case CaseId::WindowSum: return window_sum(n);
    case CaseId::SplitReduce: return split_reduce(n);
    case CaseId::Requantize: return requantize(n);
  }
  return "";
}

std::span<const SuiteCase> cases() {
  return all_cases();
}

const SuiteCase* find_case(std::string_view name) {
  for (const SuiteCase& c : all_cases())
    if (c.name == name) return &c;
  return nullptr;
}

std::string copy_kernel_text(int64_t n) {
  Text t("roofline_copy", n);
  t("out", fmt::format("PARAM slot=0 size={} out : float32", n));
  t("x", fmt::format("PARAM slot=1 size={} in : float32", n));
  t("n", fmt::format("CONST {} : index", n));
  t("i", "RANGE %n axis=0 LOOP : index");
  t("xi", "INDEX %x %i : float32");
  t("xv", "LOAD %xi : float32");
  t("oi", "INDEX %out %i : float32");
  t("st", "STORE %oi %xv : void");
  t("e", "END %st %i : void");
  t("k", "SINK %e : void");
  return t.str();
}

std::string fma_kernel_text(int64_t n) {
  Text t("roofline_fma", n);
  t("out", fmt::format("PARAM slot=0 size={} out : float32", n));
  t("x", fmt::format("PARAM slot=1 size={} in : float32", n));
  t("n", fmt::format("CONST {} : index", n));
  t("i", "RANGE %n axis=0 LOOP : index");
  t("xi", "INDEX %x %i : float32");
  t("xv", "LOAD %xi : float32");
  t("mul", "CONST 0.999 : float32");
  t("add", "CONST 0.001 : float32");
  // Independent chains, so that a core's multiply-add units are never waiting on one
  // result; each starts from the loaded value shifted, so no two chains are equal.
  for (int c = 0; c < kFmaChains; ++c) {
    t(fmt::format("s{}", c), fmt::format("CONST {} : float32", 0.125 * (c + 1)));
    t(fmt::format("a{}_0", c), fmt::format("ADD %xv %s{} : float32", c));
    for (int s = 0; s < kFmaSteps; ++s) {
      t(fmt::format("m{}_{}", c, s), fmt::format("MUL %a{}_{} %mul : float32", c, s));
      t(fmt::format("a{}_{}", c, s + 1), fmt::format("ADD %m{}_{} %add : float32", c, s));
    }
  }
  std::string acc = fmt::format("a0_{}", kFmaSteps);
  for (int c = 1; c < kFmaChains; ++c) {
    t(fmt::format("sum{}", c), fmt::format("ADD %{} %a{}_{} : float32", acc, c, kFmaSteps));
    acc = fmt::format("sum{}", c);
  }
  t("oi", "INDEX %out %i : float32");
  t("st", fmt::format("STORE %oi %{} : void", acc));
  t("e", "END %st %i : void");
  t("k", "SINK %e : void");
  return t.str();
}

int64_t fma_ops(int64_t n) {
  return n * (kFmaChains * (1 + 2 * kFmaSteps) + (kFmaChains - 1));
}

}  // namespace uopfuzz::bench::suite
