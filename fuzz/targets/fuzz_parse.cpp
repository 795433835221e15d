// libFuzzer target: bytes -> .uop parser -> verifier -> printer -> parser again.
//
// Properties (an abort with a message on stderr when one fails):
//  - parse_kernel returns an error value for bad text, never crashes or hangs (ASan/UBSan
//    catch the rest); an error has a 1-based line and column inside the text and a
//    one-line message;
//  - whatever parses can be verified, described and printed;
//  - a parsed kernel that verifies and whose header check_header() accepts prints to text
//    that parses back to the very same root (no new node interned) and header, and that
//    text prints back byte for byte (the printer's output is canonical).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"

namespace {

using namespace uopfuzz;

// Larger inputs only make slow units; the format's interesting structure is all short.
constexpr size_t kMaxInput = 64 * 1024;

[[noreturn]] void fail(std::string_view what, std::string_view input, std::string_view detail) {
  std::fprintf(stderr, "fuzz_parse: %.*s\n--- input (%zu bytes) ---\n%.*s\n--- detail ---\n%.*s\n",
               static_cast<int>(what.size()), what.data(), input.size(),
               static_cast<int>(input.size()), input.data(), static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  if (!parsed.ok()) {
    const Error& e = parsed.error();
    const long lines = std::count(text.begin(), text.end(), '\n') + 1;
    if (e.loc.line < 1 || e.loc.line > lines || e.loc.col < 1 || e.message.empty() ||
        e.message.find('\n') != std::string::npos)
      fail("malformed parse error", text,
           std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col) + ": " + e.message);
    return 0;
  }
  const ir::Kernel& k = parsed->kernel;
  if (!k.root || (k.root.op() != ir::Op::Sink && k.root.op() != ir::Op::Realize))
    fail("parsed root is not a SINK or a REALIZE", text, "");

  const auto errors = ir::verify(k.root);
  for (const auto& e : errors) {
    if (!e.node) fail("verifier error without a node", text, e.message);
    (void)ir::describe(e.node);
  }
  const std::string printed = ir::print_kernel(k);  // must not crash, verified or not
  if (!errors.empty() || ir::check_header(k).has_value()) return 0;

  const size_t nodes = ctx.size();
  auto again = ir::parse_kernel(ctx, printed);
  if (!again.ok())
    fail("printed text does not parse back", text,
         printed + "\n" + std::to_string(again.error().loc.line) + ":" +
             std::to_string(again.error().loc.col) + ": " + again.error().message);
  if (again->kernel.root != k.root)
    fail("printed text parses back to a different graph", text,
         printed + "\n--- reparsed ---\n" + ir::print_graph(again->kernel.root));
  if (ctx.size() != nodes) fail("parsing the printed text interned new nodes", text, printed);
  if (!(again->kernel.header == k.header))
    fail("printed text parses back to a different header", text,
         printed + "\n--- reparsed ---\n" + ir::print_kernel(again->kernel));
  const std::string reprinted = ir::print_kernel(again->kernel);
  if (reprinted != printed)
    fail("printing is not canonical (print(parse(print(k))) != print(k))", text,
         printed + "\n--- reprinted ---\n" + reprinted);
  return 0;
}
