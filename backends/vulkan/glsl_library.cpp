#include "backends/vulkan/glsl_library.h"

namespace uopfuzz::backends::vulkan {

// TRUNC of a double by clearing its fraction bits in integer arithmetic. Mesa 22.3's lavapipe
// returns trunc(x) and roundEven(x) of a double unchanged once |x| >= 2^23 on some x86 hosts
// (2147483647.5 stays 2147483647.5: found by the ALU conformance test), so no double routine
// here rounds with the builtins.
const char* const kTruncMath = R"(
double u_trunc(double x) {
  uint64_t b = doubleBitsToUint64(x);
  int e = int(uint(b >> 52) & 0x7ffu) - 1023;
  if (e >= 52) return x;  // already an integer, an infinity or a NaN
  if (e < 0) return uint64BitsToDouble(b & 0x8000000000000000ul);  // +-0, sign kept
  return uint64BitsToDouble(b & ~((uint64_t(1) << uint64_t(52 - e)) - uint64_t(1)));
}
)";

// An integer rounded to p significant bits (ties to even) in integer arithmetic, as a double
// (exact: p <= 53). Lavapipe folds an integer -> float -> integer round trip into the integer
// itself (uint32 16777219 came back unchanged through float32, which holds 16777220: found
// by a campaign's 2^24 edge pairs); converting the rounded integer is exact, so the fold no
// longer changes the value.
const char* const kRoundToBits = R"(
double u_round_to_bits(uint64_t x, int p) {
  uint hi = uint(x >> 32);
  int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(uint(x));
  if (msb < p) return double(x);
  int s = msb - p + 1;
  uint64_t low = x & ((uint64_t(1) << uint64_t(s)) - uint64_t(1));
  uint64_t tie = uint64_t(1) << uint64_t(s - 1);
  uint64_t base = x >> uint64_t(s);
  if (low > tie || (low == tie && (base & uint64_t(1)) != uint64_t(0))) base += uint64_t(1);
  return ldexp(double(base), s);
}
)";

// Double-precision EXP2, LOG2 and SIN (GLSL has none): accurate to about 1 ulp of
// double, so that float32/float16 results round exactly as the oracle's libm values do.
// Each is emitted only into the shaders that use it.
const char* const kExp2Math = R"(
double u_scale2(double p, int n) { int h = n / 2; return ldexp(ldexp(p, h), n - h); }
double u_exp2(double x) {
  if (isnan(x)) return x;
  if (x >= 1024.0lf) return uint64BitsToDouble(0x7ff0000000000000ul);
  if (x < -1080.0lf) return 0.0lf;
  double n = u_trunc(x + (x < 0.0lf ? -0.5lf : 0.5lf));  // nearest (either way on ties)
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

const char* const kLog2Math = R"(
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
const char* const kSinMath = R"(
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
    precise double y = x * 0.63661977236758134308lf;
    double k = u_trunc(y + (y < 0.0lf ? -0.5lf : 0.5lf));  // nearest: |r| <= pi/4 + an ulp
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
const char* const kCompare64 = R"(
bool u_lt_s64(int64_t a, int64_t b) { int ah = int(a >> 32), bh = int(b >> 32); return ah < bh || (ah == bh && uint(a) < uint(b)); }
bool u_lt_u64(uint64_t a, uint64_t b) { uint ah = uint(a >> 32), bh = uint(b >> 32); return ah < bh || (ah == bh && uint(a) < uint(b)); }
bool u_eq_s64(int64_t a, int64_t b) { return int(a >> 32) == int(b >> 32) && uint(a) == uint(b); }
bool u_eq_u64(uint64_t a, uint64_t b) { return uint(a >> 32) == uint(b >> 32) && uint(a) == uint(b); }
)";

}  // namespace uopfuzz::backends::vulkan
