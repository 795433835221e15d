#include "ir/quant.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "ir/value.h"

namespace uopfuzz::ir {
namespace {

// The process-wide table of quantized types. Entries are never freed or moved, so a
// reader needs no lock: it loads the chunk pointer (published with release after the
// entry is written) and reads the entry. Interning takes the mutex.
struct Entry {
  QuantParams params;
  std::string name;
};

constexpr uint32_t kChunkBits = 12;
constexpr uint32_t kChunkSize = 1u << kChunkBits;
constexpr uint32_t kMaxEntries = 1u << 24;  // DType::quant_ has 24 bits; entry 0 is "plain"

class QuantTable {
 public:
  uint32_t intern(const QuantParams& p) {
    uint64_t scale_bits;
    std::memcpy(&scale_bits, &p.scale, sizeof scale_bits);
    auto key = std::make_tuple(static_cast<int>(p.storage), scale_bits, p.zero_point);
    std::lock_guard lock(mu_);
    if (auto it = ids_.find(key); it != ids_.end()) return it->second;
    const uint32_t id = next_++;
    if (id >= kMaxEntries) {
      // Unreachable in practice (generators draw scales from a finite menu); failing loudly
      // beats two types sharing an entry.
      fmt::print(stderr, "uopfuzz: more than {} distinct quantized types in one process\n",
                 kMaxEntries - 1);
      std::abort();
    }
    auto& chunk = chunks_[id >> kChunkBits];
    Entry* slots = chunk.load(std::memory_order_relaxed);
    if (!slots) {
      owned_.push_back(std::make_unique<Entry[]>(kChunkSize));
      slots = owned_.back().get();
    }
    Entry& e = slots[id & (kChunkSize - 1)];
    e.params = p;
    e.name = fmt::format("q{}<{},{}>", DType(p.storage).name(), p.scale, p.zero_point);
    chunk.store(slots, std::memory_order_release);
    ids_.emplace(key, id);
    return id;
  }

  const Entry& at(uint32_t id) const {
    return chunks_[id >> kChunkBits].load(std::memory_order_acquire)[id & (kChunkSize - 1)];
  }

 private:
  std::mutex mu_;
  uint32_t next_ = 1;
  std::map<std::tuple<int, uint64_t, int64_t>, uint32_t> ids_;
  std::array<std::atomic<Entry*>, kMaxEntries / kChunkSize> chunks_{};
  std::vector<std::unique_ptr<Entry[]>> owned_;
};

QuantTable& table() {
  static QuantTable* t = new QuantTable();  // never destroyed: DTypes outlive static order
  return *t;
}

bool is_storage_type(ScalarType s) {
  switch (s) {
    case ScalarType::Int8:
    case ScalarType::UInt8:
    case ScalarType::Int16:
    case ScalarType::Int32: return true;
    case ScalarType::Void:
    case ScalarType::Bool:
    case ScalarType::Int64:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64:
    case ScalarType::Index: return false;
  }
  return false;
}

constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();

}  // namespace

DType DType::quantized(ScalarType storage, double scale, int64_t zero_point) {
  return DType(storage, table().intern({storage, scale, zero_point}));
}

const QuantParams& quant_params(DType dt) {
  return table().at(dt.quant()).params;
}

namespace detail {
std::string_view quant_name(uint32_t id) {
  return table().at(id).name;
}
}  // namespace detail

std::optional<std::string> quant_type_error(DType dt) {
  const QuantParams& p = quant_params(dt);
  if (!is_storage_type(p.storage))
    return fmt::format("{}: a quantized type stores int8, uint8, int16 or int32, not {}", dt.name(),
                       DType(p.storage).name());
  if (!(p.scale > 0) || std::isinf(p.scale))
    return fmt::format("{}: the scale must be a positive finite number, got {}", dt.name(),
                       p.scale);
  const DType s(p.storage);
  if (p.zero_point < s.int_min() || p.zero_point > s.int_max())
    return fmt::format("{}: the zero point {} is outside {}'s range {}..{}", dt.name(),
                       p.zero_point, s.name(), s.int_min(), s.int_max());
  return std::nullopt;
}

std::optional<Requantizer> requantizer(double s_in, double s_out, std::string* why) {
  const double m = s_in / s_out;
  if (!(m > 0) || std::isinf(m)) {
    if (why)
      *why = fmt::format(
          "unsupported: the scale ratio {} / {} is not a positive finite "
          "number",
          s_in, s_out);
    return std::nullopt;
  }
  int e = 0;
  const double f = std::frexp(m, &e);  // m = f * 2^e, f in [0.5, 1)
  // f * 2^31 is exact (a power-of-two scaling); round it half away from zero to Q31.
  int64_t m0 = std::llround(std::ldexp(f, 31));
  if (m0 == (int64_t{1} << 31)) {
    m0 /= 2;
    ++e;
  }
  Requantizer r;
  r.m0 = static_cast<int32_t>(m0);
  r.left = e > 0 ? e : 0;
  r.right = e < 0 ? -e : 0;
  if (r.right > 31 || r.left > 31) {
    if (why)
      *why = fmt::format(
          "unsupported: the scale ratio {} / {} = {} is a Q31 multiplier times 2^{}, "
          "outside 2^-31..2^31",
          s_in, s_out, m, e);
    return std::nullopt;
  }
  return r;
}

std::optional<std::string> requantize_unsupported(DType from, DType to, int64_t terms) {
  if (!from.is_quantized() || !to.is_quantized())
    return fmt::format("unsupported: REQUANTIZE needs two quantized types, got {} -> {}",
                       from.name(), to.name());
  const QuantParams& a = quant_params(from);
  const QuantParams& b = quant_params(to);
  std::string why;
  auto r = requantizer(a.scale, b.scale, &why);
  if (!r) return why;
  // The centered extremes, times the term count, must stay in int32 (the kernel form of a
  // quantized sum accumulates there). Bounded in double so the check cannot overflow.
  const DType s(a.storage);
  const double lo = static_cast<double>(s.int_min() - a.zero_point) * static_cast<double>(terms);
  const double hi = static_cast<double>(s.int_max() - a.zero_point) * static_cast<double>(terms);
  if (lo < static_cast<double>(kI32Min) || hi > static_cast<double>(kI32Max))
    return terms == 1 ? fmt::format("unsupported: {} -> {}: q - z of {} can leave int32",
                                    from.name(), to.name(), from.name())
                      : fmt::format(
                            "unsupported: {} -> {}: a sum of {} values q - z can "
                            "overflow the int32 accumulator",
                            from.name(), to.name(), terms);
  return std::nullopt;
}

int64_t rounding_shift_right(int64_t p, int n) {
  if (n == 0) return p;
  const int64_t half = int64_t{1} << (n - 1);
  const int64_t magnitude = ((p < 0 ? -p : p) + half) >> n;
  return p < 0 ? -magnitude : magnitude;
}

int64_t requantize_centered(int64_t x, const Requantizer& r, DType to) {
  const QuantParams& b = quant_params(to);
  const DType s(b.storage);
  return std::clamp(rounding_shift_right(x * int64_t{r.m0}, r.shift()) + b.zero_point, s.int_min(),
                    s.int_max());
}

int64_t quantize_value(double x, DType to) {
  const QuantParams& b = quant_params(to);
  const DType s(b.storage);
  if (std::isnan(x)) return b.zero_point;
  // Clamping the quotient before rounding changes nothing (every storage range is far
  // inside +-2^40) and keeps the conversion to an integer defined for +-inf.
  const double t = std::clamp(x / b.scale, -0x1p40, 0x1p40);
  const auto q = static_cast<int64_t>(std::round(t));  // half away from zero, exactly
  return std::clamp(q + b.zero_point, s.int_min(), s.int_max());
}

double dequantize_value(int64_t q, DType from, DType to) {
  const QuantParams& a = quant_params(from);
  const double real = a.scale * static_cast<double>(q - a.zero_point);
  return round_float(to, real).f;  // scale is finite and > 0, so real is never NaN
}

}  // namespace uopfuzz::ir
