#include "bench/run_context.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "backends/registry.h"
#include "bench/build_info.h"

namespace uopfuzz::bench {

namespace {

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : "unknown";
}

// A value of /proc/cpuinfo ("model name", "cpu MHz"), or "".
std::string cpuinfo(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos) {
      std::string v = line.substr(line.find(':') + 1);
      v.erase(0, v.find_first_not_of(' '));
      return v;
    }
  return "";
}

// Local time with its offset, as Google Benchmark writes it: 2026-11-29T17:50:03+00:00.
std::string iso_date() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
  std::string s(buf);
  if (s.size() > 2) s.insert(s.size() - 2, ":");
  return s;
}

}  // namespace

std::vector<MeasuredDevice> describe_devices(const std::vector<std::string>& backend_names) {
  std::vector<MeasuredDevice> out;
  for (const std::string& name : backend_names) {
    MeasuredDevice m{name, {}, ""};
    if (backends::Backend* b = backends::find_backend(name)) {
      auto d = b->device();
      if (d)
        m.device = *d;
      else
        m.error = d.error().message;
    } else {
      m.error = "no such backend";
    }
    if (!m.error.empty()) m.device.device = "unavailable: " + m.error;
    out.push_back(std::move(m));
  }
  return out;
}

std::string build_commit() {
  return UOPFUZZ_BUILD_COMMIT;
}

nlohmann::ordered_json context_json(const std::string& executable,
                                    const std::vector<MeasuredDevice>& devices,
                                    const std::string& cases, int reps) {
  nlohmann::ordered_json c;
  c["date"] = iso_date();
  c["host_name"] = host_name();
  c["executable"] = executable;
  const unsigned cpus = std::thread::hardware_concurrency();
  c["num_cpus"] = cpus;
  const std::string mhz = cpuinfo("cpu MHz");
  c["mhz_per_cpu"] = mhz.empty() ? 0 : static_cast<int>(std::atof(mhz.c_str()));
  c["cpu_scaling_enabled"] = false;
  c["caches"] = nlohmann::ordered_json::array();
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = 0;
  c["load_avg"] = {load[0], load[1], load[2]};
  c["library_build_type"] =
      std::string(UOPFUZZ_BUILD_TYPE).empty() ? "unknown" : UOPFUZZ_BUILD_TYPE;
  c["uopfuzz_version"] = UOPFUZZ_VERSION;
  c["commit"] = build_commit();
  const std::string model = cpuinfo("model name");
  c["cpu"] = model;
  c["machine"] =
      fmt::format("{} ({}, {} cores)", host_name(), model.empty() ? "unknown CPU" : model, cpus);
  struct utsname u {};
  if (::uname(&u) == 0) c["os"] = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  if (!cases.empty()) c["cases"] = cases;
  if (reps > 0) c["reps"] = reps;
  nlohmann::ordered_json devs = nlohmann::ordered_json::array();
  for (const auto& m : devices)
    devs.push_back({{"backend", m.backend},
                    {"device", m.device.device},
                    {"driver", m.device.driver},
                    {"driver_info", m.device.driver_info},
                    {"api_version", m.device.api_version},
                    {"device_type", m.device.device_type}});
  c["devices"] = devs;
  return c;
}

}  // namespace uopfuzz::bench
