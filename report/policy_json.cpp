#include "report/policy_json.h"

#include <type_traits>
#include <utility>

namespace uopfuzz::report {
namespace {

/// The visitor handed to fields(): numbers and bools as themselves, a struct with fields()
/// as an object of its own.
struct JsonFields {
  nlohmann::ordered_json& out;

  template <class T>
  void operator()(const char* name, const T& value) const {
    if constexpr (requires { value.fields(std::declval<JsonFields>()); }) {
      nlohmann::ordered_json sub = nlohmann::ordered_json::object();
      value.fields(JsonFields{sub});
      out[name] = std::move(sub);
    } else if constexpr (std::is_arithmetic_v<T>) {
      out[name] = value;
    }
    // Anything else (a struct without a visitor yet) is left out rather than misrecorded.
  }
};

}  // namespace

nlohmann::ordered_json policy_json(const gen::GenPolicy& policy) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  policy.fields(JsonFields{j});
  return j;
}

}  // namespace uopfuzz::report
