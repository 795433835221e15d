#include "backends/vulkan/render.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/ops.h"
#include "ir/scalar_eval.h"
#include "ir/value.h"

namespace uopfuzz::backends::vulkan {

using namespace ir;

namespace {

bool is_unsigned(DType dt) { return dt.kind() == DTypeKind::Unsigned; }

// GLSL's name for a register of dtype `dt`.
std::string gtype(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Int8: return "int8_t";
    case ScalarType::Int16: return "int16_t";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::UInt8: return "uint8_t";
    case ScalarType::UInt16: return "uint16_t";
    case ScalarType::UInt32: return "uint";
    case ScalarType::UInt64: return "uint64_t";
    case ScalarType::Float16: return "float16_t";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    case ScalarType::Index: return "int64_t";
    default: return "void";
  }
}
// ...and of a buffer element (bool: one byte).
std::string stype(DType dt) { return dt.is_bool() ? "uint8_t" : gtype(dt); }

// The unsigned integer type of a float's bits, and the bit-cast functions.
struct FloatBits {
  const char* uint_type;
  const char* to_bits;    // float -> uint bits
  const char* from_bits;  // uint bits -> float
};
FloatBits float_bits(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Float16: return {"uint16_t", "float16BitsToUint16", "uint16BitsToFloat16"};
    case ScalarType::Float32: return {"uint", "floatBitsToUint", "uintBitsToFloat"};
    default: return {"uint64_t", "doubleBitsToUint64", "uint64BitsToDouble"};
  }
}

std::string literal(DType dt, Value v) {
  switch (dt.scalar()) {
    case ScalarType::Bool: return v.i ? "true" : "false";
    case ScalarType::Int8: return fmt::format("int8_t({})", v.i);
    case ScalarType::Int16: return fmt::format("int16_t({})", v.i);
    case ScalarType::Int32: return fmt::format("int(0x{:x}u)", static_cast<uint32_t>(v.i));
    case ScalarType::Int64:
    case ScalarType::Index: return fmt::format("int64_t(0x{:x}ul)", v.u);
    case ScalarType::UInt8: return fmt::format("uint8_t({}u)", v.u);
    case ScalarType::UInt16: return fmt::format("uint16_t({}u)", v.u);
    case ScalarType::UInt32: return fmt::format("0x{:x}u", v.u);
    case ScalarType::UInt64: return fmt::format("0x{:x}ul", v.u);
    case ScalarType::Float16: return fmt::format("uint16BitsToFloat16(uint16_t({}u))", half_bits(v.f));
    case ScalarType::Float32: {
      float f = static_cast<float>(v.f);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return fmt::format("uintBitsToFloat(0x{:x}u)", b);
    }
    case ScalarType::Float64: return fmt::format("uint64BitsToDouble(0x{:x}ul)", v.u);
    default: return "0";
  }
}

// Double-precision EXP2, LOG2 and SIN (GLSL has none): accurate to about 1 ulp of
// double, so that float32/float16 results round exactly as the oracle's libm values do.
// Each is emitted only into the shaders that use it.
constexpr const char* kExp2Math = R"(
double u_scale2(double p, int n) { int h = n / 2; return ldexp(ldexp(p, h), n - h); }
double u_exp2(double x) {
  if (isnan(x)) return x;
  if (x >= 1024.0lf) return uint64BitsToDouble(0x7ff0000000000000ul);
  if (x < -1080.0lf) return 0.0lf;
  double n = roundEven(x);
  precise double y = (x - n) * 0.6931471805599453094lf;
  precise double p = 1.0lf / 6227020800.0lf;
  p = p * y + 1.0lf / 479001600.0lf;
  p = p * y + 1.0lf / 39916800.0lf;
  p = p * y + 1.0lf / 3628800.0lf;
  p = p * y + 1.0lf / 362880.0lf;
  p = p * y + 1.0lf / 40320.0lf;
  p = p * y + 1.0lf / 5040.0lf;
  p = p * y + 1.0lf / 720.0lf;
  p = p * y + 1.0lf / 120.0lf;
  p = p * y + 1.0lf / 24.0lf;
  p = p * y + 1.0lf / 6.0lf;
  p = p * y + 0.5lf;
  p = p * y + 1.0lf;
  p = p * y + 1.0lf;
  return u_scale2(p, int(n));
}
)";

constexpr const char* kLog2Math = R"(
double u_log2(double x) {
  if (isnan(x) || x < 0.0lf) return uint64BitsToDouble(0x7ff8000000000000ul);
  if (x == 0.0lf) return uint64BitsToDouble(0xfff0000000000000ul);
  if (isinf(x)) return x;
  int e;
  int sub = 0;
  if (x < 2.2250738585072014e-308lf) { x = x * 18014398509481984.0lf; sub = 54; }  // subnormal: scale by 2^54
  double m = frexp(x, e);
  e = e - sub;
  if (m < 0.70710678118654752440lf) { m = m * 2.0lf; e = e - 1; }
  precise double s = (m - 1.0lf) / (m + 1.0lf);
  precise double s2 = s * s;
  precise double p = 1.0lf / 25.0lf;
  p = p * s2 + 1.0lf / 23.0lf;
  p = p * s2 + 1.0lf / 21.0lf;
  p = p * s2 + 1.0lf / 19.0lf;
  p = p * s2 + 1.0lf / 17.0lf;
  p = p * s2 + 1.0lf / 15.0lf;
  p = p * s2 + 1.0lf / 13.0lf;
  p = p * s2 + 1.0lf / 11.0lf;
  p = p * s2 + 1.0lf / 9.0lf;
  p = p * s2 + 1.0lf / 7.0lf;
  p = p * s2 + 1.0lf / 5.0lf;
  p = p * s2 + 1.0lf / 3.0lf;
  precise double ln = 2.0lf * s + 2.0lf * s * s2 * p;
  return double(e) + ln * 1.4426950408889634074lf;
}
)";

// SIN: x = k*pi/2 + r with |r| <= pi/4, then +-sin or +-cos of r by k mod 4. Below 2^31,
// Cody-Waite; above, Payne-Hanek: x*2/pi mod 4 from the bits of 2/pi that matter at x's
// exponent, in exact integer arithmetic.
//
// u_2opi is 2/pi in 32-bit words after one zero word: bit j of 2/pi (weight 2^-j) is the
// table's bit j + 31, counting from the first word's most significant bit. The words
// are floor(2^1248 * 2/pi), computed with Python integers from pi by Machin's formula
// (pi/4 = 4 atan(1/5) - atan(1/239), each series in fixed point with 32 guard bits), at
// 1480 and 1680 bits of pi with the same result; they begin 0xA2F9836E 4E441529
// FC2757D1 F534DDC0 DB629599, the known expansion of 2/pi. 0xC90FDAA22168C235 is pi/2 *
// 2^63 rounded to nearest, from the same pi. The table reaches bit 1248 of 2/pi, past
// the 1161 that the largest double's exponent needs.
constexpr const char* kSinMath = R"(
const uint u_2opi[40] = uint[40](
    0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu,
    0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u,
    0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu,
    0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, 0x7527bac7u,
    0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u);
// 32 bits from bit position s of the 64 in hi:lo (0 <= s < 32).
uint u_bits_at(uint hi, uint lo, int s) { return uint(((uint64_t(hi) << 32) | uint64_t(lo)) >> (32 - s)); }
// x (finite, >= 2^31) = (q + f) * pi/2 with q an integer and |f| <= 1/2: returns f * pi/2
// rounded to double, and q mod 4. With x = m * 2^e (m a 53-bit integer, e >= -21),
// x*2/pi mod 4 = m*A*2^-190 mod 4 where A = bits e-1 .. e+190 of 2/pi as an integer:
// the bits before contribute multiples of 4, those after less than 2^-137. No double
// from 2^31 up lies closer to a multiple of pi/2 than |f| = 2^-61.5 (6381956970095103 *
// 2^797), so the 128 bits of f kept below carry at least 64 significant bits. Integer arithmetic
// only, 64-bit values never compared (see u_lt_u64).
double u_rem_pio2_big(double x, out int q) {
  uint64_t b = doubleBitsToUint64(x);
  uint bh = uint(b >> 32);
  int e = int((bh >> 20) & 0x7ffu) - 1075;
  uint64_t m0 = uint64_t(uint(b));
  uint64_t m1 = uint64_t((bh & 0xfffffu) | 0x100000u);
  // A's bits start at table position p = e + 30: word i, bit s (i + 6 <= 37 < 40). One
  // local copy of the table for the seven reads: indexing the constant itself makes
  // glslang copy it at each read, and lavapipe's compile then takes 3 times as long.
  int i = (e + 30) >> 5, s = (e + 30) & 31;
  uint tb[40] = u_2opi;
  uint w0 = tb[i], w1 = tb[i + 1], w2 = tb[i + 2], w3 = tb[i + 3];
  uint w4 = tb[i + 4], w5 = tb[i + 5], w6 = tb[i + 6];
  uint64_t a5 = uint64_t(u_bits_at(w0, w1, s)), a4 = uint64_t(u_bits_at(w1, w2, s)), a3 = uint64_t(u_bits_at(w2, w3, s));
  uint64_t a2 = uint64_t(u_bits_at(w3, w4, s)), a1 = uint64_t(u_bits_at(w4, w5, s)), a0 = uint64_t(u_bits_at(w5, w6, s));
  // m*A mod 2^192 in 32-bit words p0 (least significant) .. p5.
  uint64_t t = a0 * m0;
  uint p0 = uint(t);
  t = a1 * m0 + (t >> 32); uint p1 = uint(t);
  t = a2 * m0 + (t >> 32); uint p2 = uint(t);
  t = a3 * m0 + (t >> 32); uint p3 = uint(t);
  t = a4 * m0 + (t >> 32); uint p4 = uint(t);
  t = a5 * m0 + (t >> 32); uint p5 = uint(t);
  t = a0 * m1 + uint64_t(p1); p1 = uint(t);
  t = a1 * m1 + uint64_t(p2) + (t >> 32); p2 = uint(t);
  t = a2 * m1 + uint64_t(p3) + (t >> 32); p3 = uint(t);
  t = a3 * m1 + uint64_t(p4) + (t >> 32); p4 = uint(t);
  t = a4 * m1 + uint64_t(p5) + (t >> 32); p5 = uint(t);
  // Bits 191..190: the integer part mod 4; below them f, 128 bits of it in H:M.
  q = int(p5 >> 30);
  uint64_t H = (uint64_t(p5) << 34) | (uint64_t(p4) << 2) | uint64_t(p3 >> 30);
  uint64_t M = (uint64_t(p3) << 34) | (uint64_t(p2) << 2) | uint64_t(p1 >> 30);
  bool neg = (p5 & 0x20000000u) != 0u;  // f >= 1/2: the next integer, f - 1
  if (neg) {
    q = q + 1;
    H = ~H;  // 1 - f, short by 2^-128
    M = ~M;
  }
  // Normalize: N = f * 2^(64 + lz), its top bit set (lz <= 62 for every double).
  uint hh = uint(H >> 32);
  int lz = min(hh != 0u ? 31 - findMSB(hh) : 63 - findMSB(uint(H)), 63);
  uint64_t N = H;
  if (lz > 0) N = (H << lz) | (M >> (64 - lz));
  // f * pi/2 = N * C * 2^-(127 + lz), C = pi/2 * 2^63: the high 64 bits Z of N * C.
  uint64_t nh = N >> 32, nl = uint64_t(uint(N));
  uint64_t ch = 0xc90fdaa2ul, cl = 0x2168c235ul;
  uint64_t ll = nl * cl, lh = nl * ch, hl = nh * cl;
  uint64_t mid = (ll >> 32) + uint64_t(uint(lh)) + uint64_t(uint(hl));
  uint64_t Z = nh * ch + (lh >> 32) + (hl >> 32) + (mid >> 32);
  // Z * 2^-(63 + lz): two exact doubles summed (one rounding), times a power of two.
  precise double r = double(Z >> 11) * 2048.0lf + double(uint(Z) & 0x7ffu);
  r = r * uint64BitsToDouble(uint64_t(960 - lz) << 52);
  return neg ? -r : r;
}
double u_sin_poly(double r) {
  precise double r2 = r * r;
  precise double p = -1.0lf / 121645100408832000.0lf;
  p = p * r2 + 1.0lf / 355687428096000.0lf;
  p = p * r2 - 1.0lf / 1307674368000.0lf;
  p = p * r2 + 1.0lf / 6227020800.0lf;
  p = p * r2 - 1.0lf / 39916800.0lf;
  p = p * r2 + 1.0lf / 362880.0lf;
  p = p * r2 - 1.0lf / 5040.0lf;
  p = p * r2 + 1.0lf / 120.0lf;
  p = p * r2 - 1.0lf / 6.0lf;
  return r + r * r2 * p;
}
double u_cos_poly(double r) {
  precise double r2 = r * r;
  precise double p = 1.0lf / 2432902008176640000.0lf;
  p = p * r2 - 1.0lf / 6402373705728000.0lf;
  p = p * r2 + 1.0lf / 20922789888000.0lf;
  p = p * r2 - 1.0lf / 87178291200.0lf;
  p = p * r2 + 1.0lf / 479001600.0lf;
  p = p * r2 - 1.0lf / 3628800.0lf;
  p = p * r2 + 1.0lf / 40320.0lf;
  p = p * r2 - 1.0lf / 720.0lf;
  p = p * r2 + 1.0lf / 24.0lf;
  precise double h = 0.5lf * r2;
  precise double w = 1.0lf - h;
  return w + (((1.0lf - w) - h) + r2 * r2 * p);
}
double u_sin(double x) {
  if (isnan(x) || isinf(x)) return uint64BitsToDouble(0x7ff8000000000000ul);
  if (x == 0.0lf) return x;
  precise double r;
  int q;
  if (abs(x) < 2147483648.0lf) {
    // Cody-Waite with pi/2 in 22-bit pieces: k * piece is exact for |k| < 2^31, and each
    // difference is exact or nearly so (no fma: some drivers split it).
    double k = roundEven(x * 0.63661977236758134308lf);
    r = x - k * 1.5707964897155762lf;
    r = r - k * -1.6292068494294654e-07lf;
    r = r - k * 5.390302529957765e-15lf;
    r = r - k * 3.2820036682434026e-22lf;
    r = r - k * -1.2536991436265617e-29lf;
    r = r - k * 1.2293331171481208e-36lf;
    q = int(int64_t(k) & 3l);
  } else {
    r = u_rem_pio2_big(abs(x), q);
    if (x < 0.0lf) {  // sin(-x) = -sin(x): the quadrant and the remainder change sign
      r = -r;
      q = -q;
    }
    q = q & 3;
  }
  double v = (q & 1) == 0 ? u_sin_poly(r) : u_cos_poly(r);
  return q >= 2 ? -v : v;
}
)";

// 64-bit integer comparisons through 32-bit halves: Mesa 22.3's lavapipe computes some
// int64 `<` wrongly (0 < 0 true inside nested loops; found by the oracle,vulkan
// campaign), 32-bit compares are right.
constexpr const char* kCompare64 = R"(
bool u_lt_s64(int64_t a, int64_t b) { int ah = int(a >> 32), bh = int(b >> 32); return ah < bh || (ah == bh && uint(a) < uint(b)); }
bool u_lt_u64(uint64_t a, uint64_t b) { uint ah = uint(a >> 32), bh = uint(b >> 32); return ah < bh || (ah == bh && uint(a) < uint(b)); }
bool u_eq_s64(int64_t a, int64_t b) { return int(a >> 32) == int(b >> 32) && uint(a) == uint(b); }
bool u_eq_u64(uint64_t a, uint64_t b) { return uint(a >> 32) == uint(b >> 32) && uint(a) == uint(b); }
)";

struct Scope {
  std::string code;
  int indent = 1;
  UOp range;
  std::string iv;
  uint32_t id = 0;
};

class Renderer {
 public:
  explicit Renderer(const RenderOptions& o) : opt_(o) {}

  std::optional<Error> run(UOp root, RenderedKernel& out) {
    topo_ = toposort(root);
    open_ = open_ranges(topo_);
    out_ = &out;
    need(dtypes::Index);  // ranges and addresses
    for (UOp u : topo_) {
      bool p = u.op() == Op::Load || u.op() == Op::Reduce;
      for (UOp s : u.src()) p = p || pinned_.count(s);
      if (p) pinned_.insert({u, true});
      if (!u.dtype().is_void()) need(u.dtype());
      if (u.op() == Op::Param) {
        const auto& pa = u.arg<ParamArg>();
        buf_index_[u] = out.buffers.size();
        out.buffers.push_back({pa.slot, u.dtype(), pa.size, pa.output});
        if (u.dtype().bytes() == 1) out.needs.storage8 = out.needs.int8 = true;
        if (u.dtype().bytes() == 2) out.needs.storage16 = true;
      } else if (u.op() == Op::Var) {
        const auto& va = u.arg<VarArg>();
        var_index_[u] = out.vars.size();
        out.vars.push_back({va.name, va.min, va.max});
      }
    }
    // Invocations: enough for the largest constant outermost loop (capped), a fixed
    // number when a bound depends on a VAR.
    int64_t want = 1;
    for (UOp s : root.src())
      if (s.op() == Op::End && s.num_src() > 1) {
        UOp end = s.src(1).src(0);
        want = std::max<int64_t>(want, end.op() == Op::Const ? end.const_value().i : 4096);
      }
    want = std::clamp<int64_t>(want, 1, int64_t{opt_.max_groups} * kLocalSize);
    out.threads = static_cast<uint32_t>((want + kLocalSize - 1) / kLocalSize * kLocalSize);

    chain_.push_back(new_scope());
    for (UOp s : root.src())
      if (auto e = effect(s, /*top=*/true)) return e;

    std::string g = "#version 450\n";
    const Needs& n = out.needs;
    if (n.int8 || n.int16 || n.int64 || n.float16 || n.float64)
      g += "#extension GL_EXT_shader_explicit_arithmetic_types : require\n";
    if (n.storage8) g += "#extension GL_EXT_shader_8bit_storage : require\n";
    if (n.storage16) g += "#extension GL_EXT_shader_16bit_storage : require\n";
    g += fmt::format("layout(local_size_x = {}) in;\n", kLocalSize);
    if (!out.vars.empty()) g += fmt::format("layout(push_constant) uniform Vars {{ int64_t v[{}]; }} pc;\n", out.vars.size());
    for (size_t i = 0; i < out.buffers.size(); ++i) {
      const BufferBinding& b = out.buffers[i];
      g += fmt::format("layout(std430, binding = {}) restrict {} buffer B{} {{ {} d[]; }} b{};\n", i,
                       b.output ? "writeonly" : "readonly", i, stype(b.dtype), i);
    }
    g += kCompare64;
    for (const std::string& h : helpers_) g += h;
    g += fmt::format("void main() {{\n  const int64_t tid = int64_t(gl_GlobalInvocationID.x);\n  const int64_t T = {};\n",
                     out.threads);
    g += chain_[0]->code;
    g += "}\n";
    out.glsl = std::move(g);
    return std::nullopt;
  }

 private:
  void need(DType dt) {
    Needs& n = out_->needs;
    switch (dt.scalar()) {
      case ScalarType::Int8:
      case ScalarType::UInt8: n.int8 = true; break;
      case ScalarType::Int16:
      case ScalarType::UInt16: n.int16 = true; break;
      case ScalarType::Int64:
      case ScalarType::UInt64:
      case ScalarType::Index: n.int64 = true; break;
      case ScalarType::Float16: n.float16 = n.int16 = true; break;  // its bits are uint16_t
      case ScalarType::Float64: n.float64 = true; break;
      default: break;
    }
  }

  // ---- scopes and text ---------------------------------------------------------
  Scope* new_scope() {
    scopes_.push_back(std::make_unique<Scope>());
    Scope* s = scopes_.back().get();
    s->id = static_cast<uint32_t>(scopes_.size());
    return s;
  }
  void emit(Scope* s, const std::string& line) {
    s->code.append(static_cast<size_t>(s->indent) * 2, ' ');
    s->code += line;
    s->code += '\n';
  }
  std::string fresh(const char* p) { return fmt::format("{}{}", p, counter_++); }
  // A new variable of dtype `dt` holding `expr` in scope s; floats are `precise`.
  std::string define(Scope* s, DType dt, const std::string& expr) {
    std::string v = fresh("v");
    emit(s, fmt::format("{}{} {} = {};", dt.is_float() ? "precise " : "", gtype(dt), v, expr));
    return v;
  }

  // Opens a loop over `range` at the innermost scope: iterations lo, lo+step, ... < end.
  void open_loop(UOp range, const std::string& lo = "int64_t(0)", const std::string& step = "int64_t(1)") {
    std::string hi = place(range.src(0), chain_.size());
    Scope* outer = chain_.back();
    Scope* s = new_scope();
    s->range = range;
    s->iv = fresh("r");
    s->indent = outer->indent;
    // The invocations' share of the outermost loop counts in 32 bits when its end fits
    // comfortably: a native compare instead of u_lt_s64's two halves on every element of
    // a streaming kernel (the start is an invocation id and the step the invocation
    // count, both far below 2^30, so the counter cannot overflow). Inner loops keep the
    // 64-bit form: given a constant trip count, lavapipe unrolls them and then folds
    // `+0.0 + x` to x despite `precise`, turning a sum of -0 terms into -0 (a campaign
    // found it).
    const ir::Interval end = analysis_.bounds(range.src(0));
    const bool narrow = lo == "tid" && end.lo >= -(int64_t{1} << 30) && end.hi <= (int64_t{1} << 30);
    if (narrow) {
      emit(s, fmt::format("for (int {0}_32 = int({1}); {0}_32 < int({2}); {0}_32 += int({3})) {{", s->iv, lo, hi, step));
      s->indent = outer->indent + 1;
      emit(s, fmt::format("const int64_t {0} = int64_t({0}_32);", s->iv));
    } else {
      emit(s, fmt::format("for (int64_t {} = {}; u_lt_s64({}, {}); {} += {}) {{", s->iv, lo, s->iv, hi, s->iv, step));
      s->indent = outer->indent + 1;
    }
    chain_.push_back(s);
  }
  void close_scope() {
    Scope* s = chain_.back();
    chain_.pop_back();
    s->indent -= 1;
    emit(s, "}");
    chain_.back()->code += s->code;
  }

  size_t home(UOp u, size_t depth) {
    if (pinned_.count(u)) return depth - 1;
    const RangeSet& open = open_[u];
    if (open.empty()) return 0;
    for (size_t k = depth; k-- > 1;)
      for (UOp o : open)
        if (chain_[k]->range && o == chain_[k]->range) return k;
    return 0;
  }

  // ---- values ------------------------------------------------------------------
  std::string place(UOp u, size_t depth) {
    size_t k = home(u, depth);
    uint64_t key = (uint64_t{u.id()} << 32) | chain_[k]->id;
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::string v;
    switch (u.op()) {
      case Op::Const: v = define(chain_[k], u.dtype(), literal(u.dtype(), u.const_value())); break;
      case Op::Var: v = define(chain_[k], u.dtype(), fmt::format("{}(pc.v[{}])", gtype(u.dtype()), var_index_.at(u))); break;
      case Op::Range: v = chain_[k]->range == u ? chain_[k]->iv : "int64_t(0)"; break;
      case Op::Load: v = load(u, k); break;
      case Op::Reduce: v = reduce(u, k); break;
      default: {
        std::string a[3];
        for (size_t s = 0; s < u.num_src(); ++s) a[s] = place(u.src(s), k + 1);
        DType in = u.op() == Op::Where ? u.src(1).dtype() : u.src(0).dtype();
        v = define(chain_[k], u.dtype(), alu(u.op(), in, u.dtype(), a));
        break;
      }
    }
    memo_.emplace(key, v);
    return v;
  }

  // The element expression `bN.d[int(idx)]`; *gate is the gate's variable or "".
  std::string address(UOp index, size_t depth, std::string* gate) {
    UOp idx = index.src(1);
    gate->clear();
    if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) {
      *gate = place(idx.src(0), depth);
      idx = idx.src(1);
    }
    std::string i = place(idx, depth);
    return fmt::format("b{}.d[int({})]", buf_index_.at(index.src(0)), i);
  }

  std::string from_storage(DType dt, const std::string& raw) {
    if (dt.is_bool()) return fmt::format("({} != uint8_t(0))", raw);
    return raw;
  }

  std::string load(UOp u, size_t k) {
    DType dt = u.dtype();
    std::string alt = u.num_src() == 2 ? place(u.src(1), k + 1) : literal(dt, reduce_identity(Op::Add, dt));
    std::string gate;
    std::string elem = address(u.src(0), k + 1, &gate);
    Scope* s = chain_[k];
    if (gate.empty()) return define(s, dt, from_storage(dt, elem));
    // A gated load touches memory only when its gate holds.
    std::string v = define(s, dt, alt);
    emit(s, fmt::format("if ({}) {} = {};", gate, v, from_storage(dt, elem)));
    return v;
  }

  std::string reduce(UOp u, size_t k) {
    const Op op = u.arg<ReduceArg>().op;
    DType dt = u.dtype();
    std::vector<Scope*> saved(chain_.begin() + static_cast<std::ptrdiff_t>(k) + 1, chain_.end());
    chain_.resize(k + 1);
    std::string acc = fresh("acc");
    emit(chain_[k], fmt::format("{}{} {} = {};", dt.is_float() ? "precise " : "", gtype(dt), acc,
                                literal(dt, reduce_identity(op, dt))));
    for (size_t i = 1; i < u.num_src(); ++i) open_loop(u.src(i));
    std::string v = place(u.src(0), chain_.size());
    std::string args[3] = {acc, v, ""};
    emit(chain_.back(), fmt::format("{} = {};", acc, alu(op, dt, dt, args)));
    for (size_t i = 1; i < u.num_src(); ++i) close_scope();
    std::string r = define(chain_[k], dt, acc);
    chain_.insert(chain_.end(), saved.begin(), saved.end());
    return r;
  }

  // ---- effects -----------------------------------------------------------------
  std::optional<Error> effect(UOp u, bool top) {
    if (u.op() == Op::Store) {
      if (top) {
        // Outside every loop: invocation 0 alone stores (a guard scope, so that values it
        // computes are not reused outside the guard).
        Scope* root = chain_.back();
        Scope* g = new_scope();
        g->indent = root->indent;
        emit(g, "if (tid == 0) {");
        g->indent += 1;
        chain_.push_back(g);
        store(u);
        close_scope();
      } else {
        store(u);
      }
      return std::nullopt;
    }
    if (u.op() != Op::End) return Error{fmt::format("unexpected {} among the kernel's effects", op_name(u.op()))};
    size_t outer = chain_.size();
    for (size_t i = 1; i < u.num_src(); ++i) {
      if (top && i == 1) open_loop(u.src(1), "tid", "T");  // this invocation's share
      else open_loop(u.src(i));
    }
    if (auto e = effect(u.src(0), false)) return e;
    while (chain_.size() > outer) close_scope();
    return std::nullopt;
  }

  void store(UOp u) {
    const size_t depth = chain_.size();
    UOp index = u.src(0);
    std::string gate;
    std::string elem = address(index, depth, &gate);
    std::string v = place(u.src(1), depth);
    Scope* s = chain_.back();
    DType dt = index.src(0).dtype();
    std::string raw = dt.is_bool() ? fmt::format("uint8_t({} ? 1 : 0)", v) : v;
    if (gate.empty()) emit(s, fmt::format("{} = {};", elem, raw));
    else emit(s, fmt::format("if ({}) {} = {};", gate, elem, raw));
  }

  // ---- ALU semantics (ir/scalar_eval.cpp, written as GLSL) ----------------------
  std::string helper(const std::string& name, const std::string& text) {
    if (helper_names_.insert(name).second) helpers_.push_back(text);
    return name;
  }

  std::string alu(Op op, DType in, DType out, const std::string* a) {
    switch (op) {
      case Op::Where: return fmt::format("({} ? {} : {})", a[0], a[1], a[2]);
      case Op::Cast: return cast(in, out, a[0]);
      case Op::Bitcast: return bitcast(in, out, a[0]);
      default: break;
    }
    if (in.is_float()) return float_op(op, in, a);
    if (in.is_bool()) return bool_op(op, a);
    return int_op(op, in, a);
  }

  std::string bool_op(Op op, const std::string* a) {
    switch (op) {
      case Op::And: return fmt::format("({} && {})", a[0], a[1]);
      case Op::Or: return fmt::format("({} || {})", a[0], a[1]);
      case Op::Xor:
      case Op::CmpNe: return fmt::format("({} != {})", a[0], a[1]);
      case Op::CmpEq: return fmt::format("({} == {})", a[0], a[1]);
      case Op::CmpLt: return fmt::format("(!{} && {})", a[0], a[1]);
      default: return "false";  // not a bool op (the verifier refuses it)
    }
  }

  // Float math a device computes to within its precision bounds only, done in double
  // (exact for + - * / sqrt of float32/float16 operands, then rounded once).
  // RECIPROCAL and SQRT below float64 are computed in double and rounded once (exact, see
  // SEMANTICS.md); the device's own are allowed 2.5 ULP. Without float64 the graph is
  // skipped as unsupported (needs.float64), never run with the looser builtins.
  bool via_double(DType dt) const { return dt.scalar() != ScalarType::Float64; }

  std::string float_op(Op op, DType dt, const std::string* a) {
    const std::string t = gtype(dt);
    const bool half = dt.scalar() == ScalarType::Float16;
    // float16 arithmetic in float32, rounded once (24 >= 2*11+2 bits: exact rounding).
    auto arith = [&](const char* o) {
      if (half) return fmt::format("float16_t(float({}) {} float({}))", a[0], o, a[1]);
      return fmt::format("({} {} {})", a[0], o, a[1]);
    };
    auto dmath = [&](const char* fn, const char* text) {
      helper(fn, text);
      out_->needs.float64 = true;
      return fmt::format("{}({}(double({})))", t, fn, a[0]);
    };
    switch (op) {
      case Op::Neg: return fmt::format("(-{})", a[0]);
      case Op::Reciprocal:
        if (via_double(dt)) {
          out_->needs.float64 = true;
          return fmt::format("{}(1.0lf / double({}))", t, a[0]);
        }
        return fmt::format("({}(1) / {})", t, a[0]);
      case Op::Sqrt:
        if (via_double(dt)) {
          out_->needs.float64 = true;
          return fmt::format("{}(sqrt(double({})))", t, a[0]);
        }
        return fmt::format("sqrt({})", a[0]);
      case Op::Trunc: return fmt::format("trunc({})", a[0]);
      case Op::Exp2:
        return dmath("u_exp2", kExp2Math);  // this backend's own double routine: needs float64
      case Op::Log2:
        return dmath("u_log2", kLog2Math);  // this backend's own double routine: needs float64
      case Op::Sin:
        return dmath("u_sin", kSinMath);  // this backend's own double routine: needs float64
      case Op::Add: return arith("+");
      case Op::Sub: return arith("-");
      case Op::Mul: return arith("*");
      case Op::CmpLt: return fmt::format("({} < {})", a[0], a[1]);
      case Op::CmpNe: return fmt::format("(!({} == {}))", a[0], a[1]);  // NaN: true
      case Op::CmpEq: return fmt::format("({} == {})", a[0], a[1]);
      case Op::Max:
      case Op::Min: {
        // NaN if either is NaN; equal operands (+0/-0) combine by bits: MAX ands the
        // sign bits (+0 wins), MIN ors them (-0 wins).
        const bool max = op == Op::Max;
        FloatBits fb = float_bits(dt);
        std::string name = fmt::format("u_{}_{}", max ? "max" : "min", t);
        const std::string nan = dt.bytes() == 2 ? "uint16_t(0x7e00u)" : dt.bytes() == 4 ? "0x7fc00000u" : "0x7ff8000000000000ul";
        helper(name, fmt::format("{t} {n}({t} a, {t} b) {{\n"
                                 "  if (isnan(a) || isnan(b)) return {fb}({nan});\n"
                                 "  if (a {gt} b) return a;\n"
                                 "  if (a {lt} b) return b;\n"
                                 "  return {fb}({u}({tb}(a) {bop} {tb}(b)));\n}}\n",
                                 fmt::arg("t", t), fmt::arg("n", name), fmt::arg("fb", fb.from_bits), fmt::arg("u", fb.uint_type),
                                 fmt::arg("tb", fb.to_bits), fmt::arg("gt", max ? ">" : "<"), fmt::arg("lt", max ? "<" : ">"),
                                 fmt::arg("bop", max ? "&" : "|"), fmt::arg("nan", nan)));
        return fmt::format("{}({}, {})", name, a[0], a[1]);
      }
      default: return "0";  // not a float op (the verifier refuses it)
    }
  }

  static std::string lt(DType dt, const std::string& a, const std::string& b) {
    if (dt.bits() == 64) return fmt::format("u_lt_{}64({}, {})", is_unsigned(dt) ? "u" : "s", a, b);
    return fmt::format("({} < {})", a, b);
  }
  static std::string eq(DType dt, const std::string& a, const std::string& b) {
    if (dt.bits() == 64) return fmt::format("u_eq_{}64({}, {})", is_unsigned(dt) ? "u" : "s", a, b);
    return fmt::format("({} == {})", a, b);
  }

  std::string int_op(Op op, DType dt, const std::string* a) {
    const bool uns = is_unsigned(dt);
    const std::string t = gtype(dt);
    switch (op) {
      case Op::Neg: return fmt::format("({}(0) - {})", t, a[0]);
      case Op::Add: return fmt::format("({} + {})", a[0], a[1]);
      case Op::Sub: return fmt::format("({} - {})", a[0], a[1]);
      case Op::Mul: return fmt::format("({} * {})", a[0], a[1]);
      case Op::Cdiv:
      case Op::Cmod:
      case Op::FloorDiv:
      case Op::FloorMod: {
        // The divisor is made safe (0 -> 1; signed -1 -> 1 with the result fixed up), so a
        // division computed ahead of need never faults; quotients truncate (OpSDiv), the
        // remainder is computed from the quotient (GLSL's % is not C's for negatives).
        const char* which = op == Op::Cdiv ? "cdiv" : op == Op::Cmod ? "cmod" : op == Op::FloorDiv ? "fdiv" : "fmod";
        std::string name = fmt::format("u_{}_{}", which, t);
        std::string body;
        if (uns) {
          body = fmt::format("  {t} d = {z} ? {t}(1) : b;\n  {t} q = a / d;\n  return {r};\n", fmt::arg("t", t),
                             fmt::arg("z", eq(dt, "b", t + "(0)")),
                             fmt::arg("r", op == Op::Cdiv || op == Op::FloorDiv ? "q" : "a - q * d"));
        } else {
          const char* result = op == Op::Cdiv ? "m1 ? z - a : q"
                               : op == Op::Cmod ? "m1 ? z : r"
                               : op == Op::FloorDiv ? "m1 ? z - a : (adj ? q - {t}(1) : q)"
                                                    : "m1 ? z : (adj ? r + d : r)";
          body = fmt::format(
              "  {t} z = {t}(0);\n  bool m1 = {m1};\n  {t} d = ({b0} || m1) ? {t}(1) : b;\n  {t} q = a / d;\n"
              "  {t} r = a - q * d;\n  bool adj = !{r0} && {neg};\n  return ",
              fmt::arg("t", t), fmt::arg("m1", eq(dt, "b", t + "(-1)")), fmt::arg("b0", eq(dt, "b", "z")),
              fmt::arg("r0", eq(dt, "r", "z")), fmt::arg("neg", lt(dt, "(r ^ d)", "z")));
          body += fmt::format(fmt::runtime(result), fmt::arg("t", t)) + ";\n";
        }
        helper(name, fmt::format("{} {}({} a, {} b) {{\n{}}}\n", t, name, t, t, body));
        return fmt::format("{}({}, {})", name, a[0], a[1]);
      }
      case Op::Max: return fmt::format("({0} ? {1} : {2})", lt(dt, a[1], a[0]), a[0], a[1]);
      case Op::Min: return fmt::format("({0} ? {1} : {2})", lt(dt, a[0], a[1]), a[0], a[1]);
      case Op::CmpLt: return lt(dt, a[0], a[1]);
      case Op::CmpNe: return "!" + eq(dt, a[0], a[1]);
      case Op::CmpEq: return eq(dt, a[0], a[1]);
      case Op::And: return fmt::format("({} & {})", a[0], a[1]);
      case Op::Or: return fmt::format("({} | {})", a[0], a[1]);
      case Op::Xor: return fmt::format("({} ^ {})", a[0], a[1]);
      case Op::Shl:
      case Op::Shr:
        // The amount is masked: equal in range (all a UB-free kernel needs), and never an
        // undefined shift when computed ahead of need.
        return fmt::format("({} {} ({} & {}({})))", a[0], op == Op::Shl ? "<<" : ">>", a[1], t, dt.bits() - 1);
      default: return "0";  // not an integer op (the verifier refuses it)
    }
  }

  std::string cast(DType in, DType out, const std::string& x) {
    const std::string to = gtype(out);
    if (out.is_bool()) {
      if (in.is_float()) return fmt::format("(!({} == {}(0)))", x, gtype(in));  // NaN: true
      if (in.is_bool()) return x;
      return fmt::format("({} != {}(0))", x, gtype(in));
    }
    if (in.is_bool()) return fmt::format("({} ? {}(1) : {}(0))", x, to, to);
    if (in.is_float() && out.is_float()) {
      // float64 -> float16 directly: one rounding (SPIR-V OpFConvert).
      return fmt::format("{}({})", to, x);
    }
    if (!in.is_float() && out.scalar() == ScalarType::Float16 && in.bits() > 16) {
      // Through double (exact for <= 32-bit integers) rounds once; 64-bit integers go
      // directly (one rounding).
      if (in.bits() <= 32) return fmt::format("float16_t(double({}))", x);
    }
    if (!in.is_float() && !out.is_float() && in.bits() < out.bits() && is_unsigned(in) != is_unsigned(out)) {
      // Widening across signedness: extend by the source's signedness first.
      const int b = out.bits();
      std::string wide = is_unsigned(in) ? (b == 64 ? "uint64_t" : b == 32 ? "uint" : "uint16_t")
                                         : (b == 64 ? "int64_t" : b == 32 ? "int" : "int16_t");
      return fmt::format("{}({}({}))", to, wide, x);
    }
    return fmt::format("{}({})", to, x);
  }

  std::string bitcast(DType in, DType out, const std::string& x) {
    if (in.is_float() && out.is_float()) return x;
    if (in.is_float()) {
      FloatBits fb = float_bits(in);
      return fmt::format("{}({}({}))", gtype(out), fb.to_bits, x);
    }
    if (out.is_float()) {
      FloatBits fb = float_bits(out);
      return fmt::format("{}({}({}))", fb.from_bits, fb.uint_type, x);
    }
    return fmt::format("{}({})", gtype(out), x);
  }

  RenderOptions opt_;
  RenderedKernel* out_ = nullptr;
  std::vector<UOp> topo_;
  ir::NodeMap<RangeSet> open_;
  ir::Analysis analysis_;  // range ends' bounds: which loops can count in 32 bits
  std::unordered_map<UOp, bool, UOpHash> pinned_;
  std::unordered_map<UOp, size_t, UOpHash> buf_index_;
  std::unordered_map<UOp, size_t, UOpHash> var_index_;
  std::unordered_map<uint64_t, std::string> memo_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  std::vector<Scope*> chain_;
  std::set<std::string> helper_names_;
  std::vector<std::string> helpers_;
  uint64_t counter_ = 0;
};

}  // namespace

Result<RenderedKernel> render(UOp root, const RenderOptions& options) {
  RenderedKernel out;
  Renderer r(options);
  if (auto e = r.run(root, out)) return *e;
  return out;
}

}  // namespace uopfuzz::backends::vulkan
