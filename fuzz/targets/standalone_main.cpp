// The seed-loop main for builds without libFuzzer (gcc, or clang without -fsanitize=fuzzer):
// it links against the same LLVMFuzzerTestOneInput and feeds it
//   - the bytes of every file named on the command line (directories: their regular files,
//     not recursively, in name order), once each;
//   - with --runs N, N more inputs drawn from --seed S (default 1): half are random bytes,
//     half are mutations of the files given (byte flips, inserts, erasures, splices), so
//     the same command line always runs the same inputs.
// A target reports a finding by aborting: the process dies with SIGABRT (exit status 134
// in a shell) after a line naming the input it was running (and, with --crash-file PATH,
// the input's bytes written to PATH); otherwise it prints one summary line and exits 0.
//
//   fuzz_parse corpus/fuzz/fuzz_parse --runs 3000 --seed 1
//   fuzz_simplify --crash-file /tmp/crash corpus/fuzz/fuzz_simplify --runs 500

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

// What the signal handler reports: set before each input, read only in the handler.
char g_label[512] = "";
const char* g_crash_file = nullptr;
const uint8_t* g_data = nullptr;
size_t g_size = 0;

void write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w <= 0) return;
    c += w;
    n -= static_cast<size_t>(w);
  }
}

// Async-signal-safe: write(2) and open(2) only, then die of the same signal.
extern "C" void on_fatal_signal(int sig) {
  static const char kPrefix[] = "\n==standalone== fatal signal while running ";
  write_all(2, kPrefix, sizeof kPrefix - 1);
  write_all(2, g_label, strlen(g_label));
  write_all(2, "\n", 1);
  if (g_crash_file != nullptr) {
    const int fd = ::open(g_crash_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      write_all(fd, g_data, g_size);
      ::close(fd);
      static const char kSaved[] = "==standalone== input bytes written to ";
      write_all(2, kSaved, sizeof kSaved - 1);
      write_all(2, g_crash_file, strlen(g_crash_file));
      write_all(2, "\n", 1);
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void run_one(const std::string& label, const std::vector<uint8_t>& bytes) {
  std::snprintf(g_label, sizeof g_label, "%s (%zu bytes)", label.c_str(), bytes.size());
  g_data = bytes.data();
  g_size = bytes.size();
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

// splitmix64: a fixed stream per --seed on every machine.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }
};

std::vector<uint8_t> random_input(Rng& rng, const std::vector<std::vector<uint8_t>>& files,
                                  size_t max_len) {
  std::vector<uint8_t> s;
  if (files.empty() || rng.below(2) == 0) {
    s.resize(rng.below(max_len + 1));
    for (auto& b : s) b = static_cast<uint8_t>(rng.next());
    return s;
  }
  s = files[rng.below(files.size())];
  static const char kSyntax[] = "%=:#@[],. \n0123456789-";
  const size_t steps = 1 + rng.below(4);
  for (size_t k = 0; k < steps; ++k) {
    switch (rng.below(5)) {
      case 0:  // any byte
        if (!s.empty()) s[rng.below(s.size())] = static_cast<uint8_t>(rng.next());
        break;
      case 1:  // a syntax byte
        if (!s.empty()) s[rng.below(s.size())] = kSyntax[rng.below(sizeof kSyntax - 1)];
        break;
      case 2:  // insert a byte
        s.insert(s.begin() + static_cast<long>(rng.below(s.size() + 1)),
                 static_cast<uint8_t>(rng.next()));
        break;
      case 3: {  // erase a span
        if (s.empty()) break;
        const size_t at = rng.below(s.size());
        const size_t n = 1 + rng.below(std::min<size_t>(16, s.size() - at));
        s.erase(s.begin() + static_cast<long>(at), s.begin() + static_cast<long>(at + n));
        break;
      }
      default: {  // splice: our prefix, another file's suffix
        const auto& o = files[rng.below(files.size())];
        s.resize(rng.below(s.size() + 1));
        s.insert(s.end(), o.begin() + static_cast<long>(rng.below(o.size() + 1)), o.end());
      }
    }
  }
  if (s.size() > max_len) s.resize(max_len);
  return s;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--runs N] [--seed S] [--max-len L] [--crash-file PATH] [FILE|DIR]...\n"
               "  runs every file once, then N generated inputs (random bytes and mutations of\n"
               "  the files); aborts on a finding. Built without libFuzzer: for coverage-guided\n"
               "  fuzzing use the build-libfuzzer binary (see docs/libfuzzer.md).\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const char* name = std::strrchr(argv[0], '/') ? std::strrchr(argv[0], '/') + 1 : argv[0];
  uint64_t runs = 0, seed = 1;
  size_t max_len = 4096;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", name, flag);
        std::exit(usage(argv[0]));
      }
      return argv[++i];
    };
    if (a == "--runs")
      runs = std::strtoull(value("--runs"), nullptr, 10);
    else if (a == "--seed")
      seed = std::strtoull(value("--seed"), nullptr, 10);
    else if (a == "--max-len")
      max_len = std::strtoull(value("--max-len"), nullptr, 10);
    else if (a == "--crash-file")
      g_crash_file = value("--crash-file");
    else if (a == "-h" || a == "--help")
      return usage(argv[0]);
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "%s: unknown flag %s (this is the seed-loop build, not libFuzzer)\n",
                   name, a.c_str());
      return usage(argv[0]);
    } else
      paths.push_back(a);
  }
  if (paths.empty() && runs == 0) return usage(argv[0]);
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);

  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(p, ec))
        if (e.is_regular_file()) in_dir.push_back(e.path().string());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "%s: %s: no such file or directory\n", name, p.c_str());
      return 2;
    }
  }

  // A finding is an abort: report it, but leave no core file behind (libFuzzer's ASan does the
  // same).
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  std::signal(SIGABRT, on_fatal_signal);
  std::signal(SIGSEGV, on_fatal_signal);
  std::signal(SIGFPE, on_fatal_signal);
  std::signal(SIGBUS, on_fatal_signal);
  std::signal(SIGILL, on_fatal_signal);

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<uint8_t>> contents;
  size_t bytes = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes += b.size();
    run_one(f, b);
    contents.push_back(std::move(b));
  }
  Rng rng{seed};
  for (uint64_t k = 0; k < runs; ++k) {
    const std::vector<uint8_t> b = random_input(rng, contents, max_len);
    bytes += b.size();
    run_one("generated input #" + std::to_string(k) + " of --seed " + std::to_string(seed), b);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%s: %zu file(s) + %llu generated input(s) (seed %llu), %zu bytes, %.2f s: no finding\n",
      name, files.size(), static_cast<unsigned long long>(runs),
      static_cast<unsigned long long>(seed), bytes, secs);
  return 0;
}
