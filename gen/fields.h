/** \file UOPFUZZ_FIELDS: a policy struct names its fields once for its fields() visitor, which
 * report/policy_json.h uses to write the policy into `fuzz --json` (a nested table is passed as
 * itself and written through its own fields()).
 */
#pragma once

#include <string>
#include <string_view>

namespace uopfuzz::gen {

/// Calls v(name, value) for each value in order, the names read off `names`: the macro's
/// argument list as the preprocessor spells it ("a, b, c").
template <class V, class... T>
void visit_named(V& v, std::string_view names, const T&... values) {
  auto next_name = [&names]() {
    const size_t comma = names.find(',');
    std::string name(names.substr(0, comma));
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
    const size_t first = name.find_first_not_of(' ');
    return name.substr(first, name.find_last_not_of(' ') - first + 1);
  };
  (v(next_name().c_str(), values), ...);
}

}  // namespace uopfuzz::gen

/// Inside a policy struct: `UOPFUZZ_FIELDS(a, b, c)` defines `fields(v)`, calling v("a", a),
/// v("b", b), v("c", c).
#define UOPFUZZ_FIELDS(...)                                    \
  template <class V>                                           \
  void fields(V&& v) const {                                   \
    ::uopfuzz::gen::visit_named(v, #__VA_ARGS__, __VA_ARGS__); \
  }
