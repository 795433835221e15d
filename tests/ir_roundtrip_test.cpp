// Printer/parser round trips: parse(print(g)) is the very same UOp, print(parse(text)) is
// the text for canonical text, over hand-written and random kernels; and the parser
// survives thousands of mutated inputs.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "random_graph.h"

namespace uopfuzz::ir {
namespace {

std::string verify_text(UOp root) {
  std::string s;
  for (const auto& e : verify(root))
    s +=
        std::string(verify_rule_name(e.rule)) + ": " + e.message + " at " + describe(e.node) + "\n";
  return s;
}

// Canonical text: exactly what print_kernel produces (header order name, seed, expect,
// var, output, extra; nodes in topological order named %0..).
constexpr std::string_view kCanonical =
    "@name canonical\n"
    "@seed 7\n"
    "@expect ok\n"
    "@var n=3\n"
    "@output 1 [1.5, -0, inf, nan]\n"
    "@signature add-store 3f2a\n"
    "@found-by hand\n"
    "%0 = PARAM slot=1 size=4 out : float32\n"
    "%1 = VAR name=n min=1 max=4 : index\n"
    "%2 = RANGE %1 axis=0 LOOP : index\n"
    "%3 = INDEX %0 %2 : float32\n"
    "%4 = PARAM slot=0 size=4 in : float32\n"
    "%5 = CONST 4 : index\n"
    "%6 = CMPLT %2 %5 : bool\n"
    "%7 = INVALID : index\n"
    "%8 = WHERE %6 %2 %7 : index\n"
    "%9 = INDEX %4 %8 : float32\n"
    "%10 = CONST -0 : float32\n"
    "%11 = LOAD %9 %10 : float32\n"
    "%12 = CONST 3 : index\n"
    "%13 = RANGE %12 axis=1.2 REDUCE : index\n"
    "%14 = CAST %13 : float32\n"
    "%15 = MUL %11 %14 : float32\n"
    "%16 = REDUCE %15 %13 op=MAX : float32\n"
    "%17 = STORE %3 %16 : void\n"
    "%18 = END %17 %2 : void\n"
    "%19 = SINK %18 : void\n";

TEST(Roundtrip, CanonicalTextPrintsBackIdentically) {
  const std::string text(kCanonical);
  Context ctx;
  auto r = parse_kernel(ctx, text);
  ASSERT_TRUE(r.ok()) << r.error().loc.line << ":" << r.error().loc.col << " " << r.error().message;
  EXPECT_EQ(verify_text(r->kernel.root), "");
  EXPECT_EQ(print_kernel(r->kernel), text);
  // And the graph alone.
  EXPECT_EQ(print_graph(r->kernel.root), text.substr(text.find("%0 =")));
}

TEST(Roundtrip, ParsePrintGivesTheSameUOp) {
  Context ctx;
  std::string src = std::string(UOPFUZZ_SOURCE_DIR) + "/corpus/examples/arange_sum.uop";
  std::ifstream f(src);
  ASSERT_TRUE(f) << src;
  std::stringstream ss;
  ss << f.rdbuf();
  auto first = parse_kernel(ctx, ss.str());
  ASSERT_TRUE(first.ok()) << first.error().message;
  const size_t nodes = ctx.size();
  std::string printed = print_kernel(first->kernel);
  auto second = parse_kernel(ctx, printed);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->kernel.root, first->kernel.root);
  EXPECT_EQ(ctx.size(), nodes);  // nothing new was interned
  EXPECT_EQ(second->kernel.header, first->kernel.header);
  EXPECT_EQ(print_kernel(second->kernel), printed);
  // The printed form drops comments and keeps everything else.
  EXPECT_EQ(printed.find('#'), std::string::npos);
  EXPECT_EQ(printed.substr(0, printed.find('\n')), "@name arange_sum");
}

TEST(Roundtrip, PrinterNamesNodesInTopologicalOrder) {
  Context ctx;
  // Parse a kernel whose names are out of order and sparse; printing renames them.
  auto r = parse_kernel(ctx,
                        "%z = PARAM slot=0 size=1 out : int8\n"
                        "%a = CONST 0 : index\n"
                        "%q = INDEX %z %a : int8\n"
                        "%100 = CONST -128 : int8\n"
                        "%7 = NEG %100 : int8\n"
                        "%x = STORE %q %7 : void\n"
                        "%s = SINK %x : void\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(print_graph(r->kernel.root),
            "%0 = PARAM slot=0 size=1 out : int8\n"
            "%1 = CONST 0 : index\n"
            "%2 = INDEX %0 %1 : int8\n"
            "%3 = CONST -128 : int8\n"
            "%4 = NEG %3 : int8\n"
            "%5 = STORE %2 %4 : void\n"
            "%6 = SINK %5 : void\n");
}

TEST(Roundtrip, EdgeValuesPrintAndParseBack) {
  struct Case {
    DType dt;
    Value v;
    std::string_view text;
  };
  const Case cases[] = {
      {dtypes::UInt64, Value::of_uint(~uint64_t{0}), "18446744073709551615"},
      {dtypes::Int64, Value::of_int(std::numeric_limits<int64_t>::min()), "-9223372036854775808"},
      {dtypes::Index, Value::of_int(std::numeric_limits<int64_t>::max()), "9223372036854775807"},
      {dtypes::Float32, Value::of_float(-0.0), "-0"},
      {dtypes::Float64, Value::of_float(-INFINITY), "-inf"},
      {dtypes::Float16, Value::of_float(NAN), "nan"},
      {dtypes::Float16, Value::of_float(std::ldexp(1.0, -24)), "5.9604645e-08"},
      {dtypes::Float16, Value::of_float(65504.0), "65504"},
      {dtypes::Float16, Value::of_float(0.0999755859375), "0.099975586"},
      {dtypes::Float32, Value::of_float(std::numeric_limits<float>::denorm_min()), "1e-45"},
      {dtypes::Float64, Value::of_float(std::numeric_limits<double>::denorm_min()), "5e-324"},
      {dtypes::Float64, Value::of_float(0.1), "0.1"},
      {dtypes::Bool, Value::of_int(1), "true"},
  };
  for (const Case& c : cases) {
    Context ctx;
    UOp k = ctx.const_value(c.dt, c.v);
    std::string line = describe(k);
    EXPECT_EQ(line, "%" + std::to_string(k.id()) + " = CONST " + std::string(c.text) + " : " +
                        std::string(c.dt.name()));
    // Through a whole kernel: the same node comes back.
    ParamArg p;
    p.slot = 0;
    p.size = 1;
    p.output = true;
    UOp buf = ctx.make(Op::Param, c.dt, {}, p);
    UOp st = ctx.make(Op::Store, dtypes::Void,
                      {ctx.make(Op::Index, c.dt, {buf, ctx.const_int(dtypes::Index, 0)}), k});
    UOp root = ctx.make(Op::Sink, dtypes::Void, {st});
    auto r = parse_kernel(ctx, print_graph(root));
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    EXPECT_EQ(r->kernel.root, root) << c.text;
  }
}

TEST(Roundtrip, VerifiedGraphsAtTheFormatsLimitsRoundTrip) {
  // Whatever verify() accepts must print to text that parses back to the same graph;
  // one step past each limit, verify() refuses (a graph the format cannot spell).
  auto kernel = [](Context& ctx, int slot, std::vector<int32_t> axis, std::string var_name) {
    ParamArg p;
    p.slot = slot;
    p.size = 4;
    p.output = true;
    UOp out = ctx.make(Op::Param, dtypes::Int32, {}, p);
    UOp n = ctx.make(Op::Var, dtypes::Index, {}, VarArg{std::move(var_name), 1, 4, {}});
    UOp r = ctx.make(Op::Range, dtypes::Index, {n}, RangeArg{std::move(axis), AxisType::Loop});
    UOp st =
        ctx.make(Op::Store, dtypes::Void,
                 {ctx.make(Op::Index, dtypes::Int32, {out, r}), ctx.const_int(dtypes::Int32, 1)});
    return ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::End, dtypes::Void, {st, r})});
  };
  const std::vector<int32_t> deep(16, 7);
  {
    Context ctx;
    UOp root = kernel(ctx, 4096, deep, std::string(256, 'n'));
    ASSERT_EQ(verify_text(root), "");
    auto r = parse_kernel(ctx, print_graph(root));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->kernel.root, root);
  }
  {
    Context ctx;
    UOp root = kernel(ctx, 0, {0}, "a.b-c_D9");
    ASSERT_EQ(verify_text(root), "");
    auto r = parse_kernel(ctx, print_graph(root));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->kernel.root, root);
  }
  const std::vector<int32_t> too_deep(17, 7);
  struct Bad {
    int slot;
    std::vector<int32_t> axis;
    std::string name;
  };
  for (const Bad& b : {Bad{4097, {0}, "n"}, Bad{-1, {0}, "n"}, Bad{0, too_deep, "n"},
                       Bad{0, {-3}, "n"}, Bad{0, {0}, std::string(257, 'n')}, Bad{0, {0}, "n#"},
                       Bad{0, {0}, "n\nm"}, Bad{0, {0}, ""}}) {
    Context ctx;
    UOp root = kernel(ctx, b.slot, b.axis, b.name);
    EXPECT_NE(verify_text(root), "")
        << "slot " << b.slot << " axis depth " << b.axis.size() << " name " << b.name;
    EXPECT_FALSE(parse_kernel(ctx, print_graph(root)).ok());  // the text really is unreadable
  }
}

void expect_round_trip(Context& ctx, const Kernel& k, const std::string& label) {
  const std::string v = verify_text(k.root);
  ASSERT_EQ(v, "") << label << "\n" << print_kernel(k);
  const std::string text = print_kernel(k);
  const size_t nodes = ctx.size();
  auto r = parse_kernel(ctx, text);
  ASSERT_TRUE(r.ok()) << label << ": " << r.error().loc.line << ":" << r.error().loc.col << " "
                      << r.error().message << "\n"
                      << text;
  EXPECT_EQ(r->kernel.root, k.root) << label << "\n"
                                    << text << "\nreparsed:\n"
                                    << print_graph(r->kernel.root);
  EXPECT_EQ(ctx.size(), nodes) << label;
  EXPECT_TRUE(r->kernel.header == k.header) << label << "\n" << text;
  EXPECT_EQ(print_kernel(r->kernel), text) << label;
}

TEST(Roundtrip, PropertyRandomKernelsVerifyAndRoundTrip) {
  constexpr int kKernels = 600;
  int with_reduce = 0, with_gate = 0, with_alt = 0, with_nested_end = 0, with_outputs = 0,
      multi_store = 0;
  std::set<Op> ops_seen;
  std::set<DType, bool (*)(DType, DType)> dtypes_seen(
      [](DType a, DType b) { return a.scalar() < b.scalar(); });
  for (int i = 0; i < kKernels; ++i) {
    Context ctx;
    randgraph::RandomKernelBuilder b(ctx, 0x5eed0000u + static_cast<uint64_t>(i));
    Kernel k = b.build(i);
    expect_round_trip(ctx, k, "kernel " + std::to_string(i));
    if (HasFatalFailure()) return;
    bool reduce = false, gate = false, alt = false, nested = false;
    int stores = 0;
    for (UOp u : toposort(k.root)) {
      ops_seen.insert(u.op());
      dtypes_seen.insert(u.dtype());
      reduce |= u.op() == Op::Reduce;
      gate |= u.op() == Op::Invalid;
      alt |= u.op() == Op::Load && u.num_src() == 2;
      nested |= u.op() == Op::End && u.src(0).op() == Op::End;
      stores += u.op() == Op::Store;
    }
    with_reduce += reduce;
    with_gate += gate;
    with_alt += alt;
    with_nested_end += nested;
    with_outputs += !k.header.outputs.empty();
    multi_store += stores > 1;
  }
  // The generator really exercises what the property is about.
  EXPECT_GT(with_reduce, kKernels / 10);
  EXPECT_GT(with_gate, kKernels / 10);
  EXPECT_GT(with_alt, kKernels / 20);
  EXPECT_GT(with_nested_end, kKernels / 20);
  EXPECT_GT(with_outputs, kKernels / 4);
  EXPECT_GT(multi_store, kKernels / 4);
  // Tensor programs' ops (and rangeify's BUFFERIZE) cannot appear in a kernel.
  size_t kernel_ops = 0;
  for (int op = 0; op < kOpCount; ++op)
    kernel_ops += !op_in(static_cast<Op>(op), Tensor | Schedule);
  EXPECT_EQ(ops_seen.size(), kernel_ops) << "every kernel op appears in some kernel";
  EXPECT_EQ(dtypes_seen.size(), all_dtypes().size()) << "every dtype appears in some kernel";
}

TEST(Roundtrip, RandomKernelsAreDeterministicPerSeed) {
  Context a, b;
  Kernel ka = randgraph::RandomKernelBuilder(a, 99).build(1);
  Kernel kb = randgraph::RandomKernelBuilder(b, 99).build(1);
  EXPECT_EQ(print_kernel(ka), print_kernel(kb));
  Context c;
  Kernel kc = randgraph::RandomKernelBuilder(c, 100).build(1);
  EXPECT_NE(print_kernel(ka), print_kernel(kc));
}

TEST(Roundtrip, DeepChainDoesNotOverflowTheStack) {
  // 20000 nested ADDs: toposort, verify, print and parse are all iterative.
  Context ctx;
  ParamArg in, out;
  in.slot = 0;
  out.slot = 1;
  out.output = true;
  UOp src = ctx.make(Op::Param, dtypes::Int32, {}, in);
  UOp dst = ctx.make(Op::Param, dtypes::Int32, {}, out);
  UOp zero = ctx.const_int(dtypes::Index, 0);
  UOp x = ctx.make(Op::Load, dtypes::Int32, {ctx.make(Op::Index, dtypes::Int32, {src, zero})});
  UOp one = ctx.const_int(dtypes::Int32, 1);
  for (int i = 0; i < 20000; ++i) x = ctx.make(Op::Add, dtypes::Int32, {x, one});
  UOp root = ctx.make(
      Op::Sink, dtypes::Void,
      {ctx.make(Op::Store, dtypes::Void, {ctx.make(Op::Index, dtypes::Int32, {dst, zero}), x})});
  EXPECT_EQ(toposort(root).size(), 20000u + 9u);
  EXPECT_EQ(verify_text(root), "");
  Kernel k{KernelHeader{}, root};
  k.header.name = "deep";
  expect_round_trip(ctx, k, "deep chain");
}

/// Example texts for mutation: every corpus example plus a few printed random kernels.
std::vector<std::string> seed_texts() {
  std::vector<std::string> texts = {std::string(kCanonical)};
  const std::filesystem::path dir =
      std::filesystem::path(UOPFUZZ_SOURCE_DIR) / "corpus" / "examples";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".uop") files.push_back(e.path());
  std::sort(files.begin(), files.end());  // a fixed order, so a fixed mutation stream
  for (const auto& p : files) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    texts.push_back(ss.str());
  }
  for (int i = 0; i < 8; ++i) {
    Context ctx;
    texts.push_back(print_kernel(randgraph::RandomKernelBuilder(ctx, 777 + i).build(i)));
  }
  return texts;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t nl = s.find('\n', pos);
    out.push_back(s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::string join_lines(const std::vector<std::string>& ls) {
  std::string s;
  for (size_t i = 0; i < ls.size(); ++i) s += ls[i] + (i + 1 < ls.size() ? "\n" : "");
  return s;
}

std::string mutate(std::string s, std::mt19937_64& rng) {
  static const std::string interesting = "%=:#@[],. \n\r\t0-9aZ";
  const int steps = 1 + static_cast<int>(rng() % 4);
  for (int step = 0; step < steps; ++step) {
    switch (rng() % 7) {
      case 0:  // flip a byte to anything
        if (!s.empty()) s[rng() % s.size()] = static_cast<char>(rng() % 256);
        break;
      case 1:  // replace a byte with a syntax character
        if (!s.empty()) s[rng() % s.size()] = interesting[rng() % interesting.size()];
        break;
      case 2:  // truncate
        s.resize(s.empty() ? 0 : rng() % s.size());
        break;
      case 3: {  // duplicate a line
        auto ls = split_lines(s);
        size_t i = rng() % ls.size();
        ls.insert(ls.begin() + static_cast<long>(rng() % (ls.size() + 1)), ls[i]);
        s = join_lines(ls);
        break;
      }
      case 4: {  // delete a line
        auto ls = split_lines(s);
        if (ls.size() > 1) ls.erase(ls.begin() + static_cast<long>(rng() % ls.size()));
        s = join_lines(ls);
        break;
      }
      case 5: {  // swap two lines
        auto ls = split_lines(s);
        std::swap(ls[rng() % ls.size()], ls[rng() % ls.size()]);
        s = join_lines(ls);
        break;
      }
      default: {  // insert a token
        static const char* toks[] = {" %0",
                                     " %99",
                                     " 1e400",
                                     " -0",
                                     " nan",
                                     " axis=",
                                     " : ",
                                     " slot=",
                                     " op=ADD",
                                     " REDUCE",
                                     " #",
                                     "@x y\n",
                                     " 18446744073709551616",
                                     " \xff"};
        s.insert(s.empty() ? 0 : rng() % s.size(), toks[rng() % std::size(toks)]);
      }
    }
  }
  return s;
}

TEST(Roundtrip, ParserSurvivesMutatedInput) {
  const std::vector<std::string> seeds = seed_texts();
  ASSERT_GE(seeds.size(), 10u);
  std::mt19937_64 rng(20240607);
  int ok = 0, errors = 0, verified = 0;
  constexpr int kMutants = 6000;
  for (int i = 0; i < kMutants; ++i) {
    const std::string text = mutate(seeds[rng() % seeds.size()], rng);
    Context ctx;
    auto r = parse_kernel(ctx, text);
    if (!r.ok()) {
      ++errors;
      const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
      ASSERT_GE(r.error().loc.line, 1) << r.error().message << "\n" << text;
      ASSERT_LE(r.error().loc.line, lines) << r.error().message << "\n" << text;
      ASSERT_GE(r.error().loc.col, 1) << r.error().message << "\n" << text;
      ASSERT_FALSE(r.error().message.empty());
      ASSERT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
      continue;
    }
    ++ok;
    ASSERT_EQ(r->kernel.root.op(), Op::Sink);
    auto errs = verify(r->kernel.root);  // must not crash on whatever parsed
    for (const auto& e : errs) ASSERT_TRUE(static_cast<bool>(e.node));
    std::string printed = print_kernel(r->kernel);  // nor must printing
    if (errs.empty()) {
      ++verified;
      auto again = parse_kernel(ctx, printed);
      ASSERT_TRUE(again.ok()) << again.error().message << "\n" << printed;
      EXPECT_EQ(again->kernel.root, r->kernel.root) << text;
      EXPECT_TRUE(again->kernel.header == r->kernel.header) << text;
    }
  }
  // Both outcomes occur, so the test is testing something.
  EXPECT_GT(errors, kMutants / 4);
  EXPECT_GT(ok, kMutants / 100);
  EXPECT_GT(verified, 0);
}

}  // namespace
}  // namespace uopfuzz::ir

namespace uopfuzz::ir {
namespace {

// check_header is the gate before print_kernel: what it accepts must parse back equal,
// and what it rejects is exactly what would not.
TEST(Roundtrip, CheckHeaderGuardsWhatPrintsBack) {
  Context ctx;
  auto parsed = parse_kernel(ctx, R"(@name ok
@output 0 [0]
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 0 : int32
%4 = STORE %2 %3 : void
%5 = SINK %4 : void
)");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  Kernel good = parsed->kernel;
  good.header.extra.emplace_back("found-by", "selftest seed 7");
  good.header.expect = Expect::Ub;  // printed even without expect_given
  ASSERT_FALSE(check_header(good).has_value());
  Context ctx2;
  auto back = parse_kernel(ctx2, print_kernel(good));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kernel.header.extra, good.header.extra);
  EXPECT_EQ(back->kernel.header.expect, Expect::Ub);

  auto rejected = [&](auto mutate, const std::string& why) {
    Kernel k = good;
    mutate(k.header);
    auto problem = check_header(k);
    ASSERT_TRUE(problem.has_value()) << "accepted a header that cannot round-trip: " << why;
    Context c3;
    auto reparsed = parse_kernel(c3, print_kernel(k));
    EXPECT_TRUE(!reparsed.ok() || !(reparsed->kernel.header == k.header))
        << why << " actually round-trips";
  };
  rejected([](KernelHeader& h) { h.name = "two\nlines"; }, "newline in name");
  rejected([](KernelHeader& h) { h.name = "a # b"; }, "'#' in name");
  rejected([](KernelHeader& h) { h.name = " padded"; }, "leading blank in name");
  rejected([](KernelHeader& h) { h.extra.emplace_back("bad key", "v"); }, "blank in key");
  rejected([](KernelHeader& h) { h.extra.emplace_back("seed", "3"); }, "reserved key");
  rejected([](KernelHeader& h) { h.extra.emplace_back("note", ""); }, "empty value");
  rejected([](KernelHeader& h) { h.outputs[0].slot = 5; }, "output slot not in graph");
  rejected([](KernelHeader& h) { h.outputs[0].values.push_back(Value::of_int(1)); },
           "output size mismatch");
}

}  // namespace
}  // namespace uopfuzz::ir
