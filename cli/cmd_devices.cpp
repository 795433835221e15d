// uopfuzz devices: the Vulkan devices, as text or JSON.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backends/vulkan/device_info.h"
#include "cli/command.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;

void print_json(const std::vector<backends::vulkan::DeviceInfo>& devs) {
  json a = json::array();
  for (const auto& d : devs)
    a.push_back({{"index", d.index},
                 {"name", d.name},
                 {"type", d.type},
                 {"driver", d.driver},
                 {"driver_info", d.driver_info},
                 {"api_version", d.api_version},
                 {"subgroup_size", d.subgroup_size},
                 {"timestamp_period_ns", d.timestamp_period},
                 {"timestamps", d.timestamps},
                 {"max_workgroup_invocations", d.max_workgroup_invocations},
                 {"max_workgroup_count_x", d.max_workgroup_count_x},
                 {"max_push_constants", d.max_push_constants},
                 {"max_storage_buffer_range", d.max_storage_buffer_range},
                 {"features",
                  {{"int64", d.int64},
                   {"int16", d.int16},
                   {"int8", d.int8},
                   {"float64", d.float64},
                   {"float16", d.float16},
                   {"storage8", d.storage8},
                   {"storage16", d.storage16},
                   {"denorm_preserve32", d.denorm_preserve32},
                   {"denorm_preserve64", d.denorm_preserve64}}}});
  fmt::print("{}\n", a.dump(2));
}

void print_text(const std::vector<backends::vulkan::DeviceInfo>& devs) {
  if (devs.empty()) fmt::print("no Vulkan devices\n");
  auto yn = [](bool b) { return b ? "yes" : "no"; };
  for (const auto& d : devs) {
    fmt::print("[{}] {} ({}), driver {} {}, Vulkan {}\n", d.index, d.name, d.type, d.driver,
               d.driver_info, d.api_version);
    fmt::print(
        "    subgroup size {}, max workgroup invocations {}, max workgroups x {}, push constants "
        "{} B, max storage buffer {} B, timestamps {} ({} ns/tick)\n",
        d.subgroup_size, d.max_workgroup_invocations, d.max_workgroup_count_x, d.max_push_constants,
        d.max_storage_buffer_range, d.timestamps ? "yes" : "no", d.timestamp_period);
    fmt::print(
        "    int64 {}, int16 {}, int8 {}, float64 {}, float16 {}, 8-bit storage {}, 16-bit "
        "storage {}, denorm preserve f32 {} f64 {}\n",
        yn(d.int64), yn(d.int16), yn(d.int8), yn(d.float64), yn(d.float16), yn(d.storage8),
        yn(d.storage16), yn(d.denorm_preserve32), yn(d.denorm_preserve64));
  }
}

}  // namespace

Action add_devices(CLI::App& cmd, Invocation&) {
  auto as_json = std::make_shared<bool>(false);
  cmd.add_flag("--json", *as_json, "print the list as JSON");
  return [as_json] {
    auto devs = backends::vulkan::list_devices();
    if (!devs) {
      fmt::print(stderr, "error: {}\n", devs.error().message);
      return kExitBadInput;
    }
    if (*as_json)
      print_json(*devs);
    else
      print_text(*devs);
    return kExitOk;
  };
}

}  // namespace uopfuzz::cli
