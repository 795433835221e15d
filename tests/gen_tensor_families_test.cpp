// The tensor generator's families and knobs: every TensorNodeWeights and QuantNodeWeights row
// is the weight of one row of gen/tensor_families.def, in the same order (the draw's order);
// the fields() visitors of TensorGenPolicy, its tables and MutationKnobs name each field once
// and read its live value; and a family's knob changes what the family builds.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "gen/mutate.h"
#include "gen/tensor_gen.h"
#include "ir/printer.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

template <class T>
concept Visitable = requires(const T& t) {
  t.fields([](const char*, const auto&) {});
};

/// "path" -> value of every numeric field reached through fields(), nested tables as
/// "table.field"; a nested struct without a visitor is listed as "table" -> NaN.
struct Collect {
  std::string prefix;
  std::vector<std::pair<std::string, double>>* out;
  template <class T>
  void operator()(const char* name, const T& value) const {
    const std::string path = prefix + name;
    if constexpr (Visitable<T>) {
      value.fields(Collect{path + ".", out});
    } else if constexpr (std::is_arithmetic_v<T>) {
      out->emplace_back(path, static_cast<double>(value));
    } else {
      out->emplace_back(path, std::numeric_limits<double>::quiet_NaN());
    }
  }
};

template <class T>
std::vector<std::pair<std::string, double>> leaves(const T& t) {
  std::vector<std::pair<std::string, double>> out;
  t.fields(Collect{"", &out});
  return out;
}

std::vector<std::string> names(const std::vector<std::pair<std::string, double>>& v) {
  std::vector<std::string> out;
  for (const auto& [n, x] : v) out.push_back(n);
  return out;
}

TEST(TensorGenFamilies, EachNodeWeightIsOneFamilyInTheDrawOrder) {
  const std::vector<std::string> rows = {
#define TENSOR_FAMILY(e, name, weight, gate, builder, what) #weight,
#include "gen/tensor_families.def"
  };
  EXPECT_EQ(rows, names(leaves(TensorNodeWeights{})));
  const std::vector<std::string> qrows = {
#define QUANT_FAMILY(e, name, weight, builder, what) #weight,
#include "gen/tensor_families.def"
  };
  EXPECT_EQ(qrows, names(leaves(QuantNodeWeights{})));
}

TEST(TensorGenFamilies, VisitorsNameEachFieldOnceAndReadItsValue) {
  GenPolicy p;
  const auto before = leaves(p.tensor);
  std::set<std::string> seen;
  for (const auto& [name, value] : before) EXPECT_TRUE(seen.insert(name).second) << name;
  EXPECT_GE(before.size(), 150u);  // the top-level knobs and every table's rows
  const std::map<std::string, double> by_name(before.begin(), before.end());
  ASSERT_TRUE(by_name.count("nodes.partial_shared"));
  ASSERT_TRUE(by_name.count("other_views.swap_equal"));
  ASSERT_TRUE(by_name.count("hard_floats.special"));
  ASSERT_TRUE(by_name.count("p_pad_more_dims"));
  p.tensor.p_pad_more_dims = 0.875;
  p.tensor.nodes.partial_shared = 7;
  const std::map<std::string, double> after_map = [&] {
    auto v = leaves(p.tensor);
    return std::map<std::string, double>(v.begin(), v.end());
  }();
  EXPECT_EQ(after_map.at("p_pad_more_dims"), 0.875);
  EXPECT_EQ(after_map.at("nodes.partial_shared"), 7);
  const auto knobs = leaves(MutationKnobs{});
  EXPECT_EQ(names(knobs), (std::vector<std::string>{"p_empty_reduce", "max_reduce_trips",
                                                    "p_bound_above", "max_splice_nodes"}));
}

/// The printed programs of seeds [0, n) under `p`.
std::string programs(const GenPolicy& p, uint64_t n) {
  std::string all;
  for (uint64_t seed = 0; seed < n; ++seed) {
    Context ctx;
    all += print_kernel(generate_tensor_program(ctx, p, seed).program);
  }
  return all;
}

// A knob that used to be a literal steers its family: off and on give other programs than
// the default, and "off" leaves out what only it builds.
TEST(TensorGenFamilies, FormerLiteralsAreKnobsThatSteerTheirFamilies) {
  GenPolicy base;
  base.tensor.nodes.movement = 50;  // mostly movement ops: pads, shrinks, flips
  const std::string dflt = programs(base, 40);
  GenPolicy more = base;
  more.tensor.p_pad_more_dims = 1;
  more.tensor.p_shrink_more_dims = 1;
  more.tensor.p_flip_more_axes = 1;
  EXPECT_NE(programs(more, 40), dflt);
  // Only inputs and self-combines, whose second read is a flip: no PERMUTE anywhere.
  GenPolicy no_round_trip;
  no_round_trip.tensor.p_large_reduce = 0;
  no_round_trip.tensor.p_quantized_output = 0;
  no_round_trip.tensor.nodes = {.input = 1,
                                .constant = 0,
                                .reuse = 0,
                                .elementwise = 0,
                                .cast = 0,
                                .movement = 0,
                                .reduce = 0,
                                .reduce_broadcast = 0,
                                .self_combine = 50,
                                .contiguous = 0,
                                .shared_reduce = 0,
                                .unary_in_reduce = 0,
                                .wide_read = 0,
                                .pad_shared = 0,
                                .const_broadcast = 0,
                                .dead_axes = 0,
                                .split_candidate = 0,
                                .dequantize = 0,
                                .gated_divide = 0,
                                .partial_shared = 0};
  no_round_trip.tensor.other_views = {
      .flip = 1, .swap_equal = 0, .shift = 0, .reshape_round_trip = 0};
  const std::string flips = programs(no_round_trip, 40);
  EXPECT_EQ(flips.find("PERMUTE"), std::string::npos);
  EXPECT_NE(flips.find("FLIP"), std::string::npos);
}

}  // namespace
}  // namespace uopfuzz::gen
