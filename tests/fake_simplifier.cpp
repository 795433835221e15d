// A stand-in external simplifier for the tests of the protocol's client: it speaks the
// protocol of docs/external-simplifier.md and misbehaves on demand.
//
//   fake_simplifier [--mode MODE] [--marker N] [--hello normal|slow|none|bad]
//                   [--hello-delay S] [--capabilities "hits disable stop-after"]
//                   [--tolerances zero-sign] [--bounds "K LO HI;K LO HI..."]
//                   [--declines "quantized range-end-1 ..."]
//
// Every request is answered by echoing its kernel back (with hits frames), except that
// MODE applies to the requests holding a `CONST N` node when --marker is given, and to all
// requests otherwise. Modes: echo, exit (status 3), noisy-exit (100 KB of stderr first),
// segv, hang, garbage, unknown-frame, unparsable, not-sink, bad-hits, unsupported, error.
//
// The hits of an echo: fake_rule_a 3, fake_rule_b 1 (in two frames), requests_served n (the
// requests this process has read), and `option:<key>=<value>` once per request option.
// Its hello's version is "fake pid <pid>", so a test can tell two children apart.
// With --bounds (and `bounds` among --capabilities), a request with the option bounds=1
// gets a bounds frame first: the given `K LO HI` lines, as claims about the request's nodes.
// --declines puts a `declines:` line with the given words in its hello, --forms a `forms:`
// line; an echo adds a hit `form:<word>` for each word of the request body's `@forms` line.
//
// Runs (`run` among --capabilities): --devices "A B" names its devices in the hello; a `run`
// request is answered per device by --run-outputs "A=<line>|<line>;B=<line>" (each device's
// outputs body, lines `<k> [v, ...]` split at '|'), a device listed in --run-error raising
// instead, the Program text in the file --run-program (if given), and an `ok`; only the
// devices the request's `devices=` names (all without it). --device-limits "B=5" goes into
// the hello as it is.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

struct Request {
  std::string type;                  // "simplify" or "run"
  std::vector<std::string> options;  // "key=value"
  std::string body;
};

std::string g_in;

void write_all(std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::write(1, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::exit(1);
    s.remove_prefix(static_cast<size_t>(n));
  }
}

void frame(std::string_view type, std::string_view body) {
  write_all(std::string(type) + " " + std::to_string(body.size()) + "\n" + std::string(body));
}

bool fill() {
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n > 0) {
      g_in.append(buf, static_cast<size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

/// The next `simplify` frame; false at EOF.
bool next_request(Request& r) {
  size_t eol;
  while ((eol = g_in.find('\n')) == std::string::npos)
    if (!fill()) return false;
  std::vector<std::string> words;
  size_t i = 0;
  std::string header = g_in.substr(0, eol);
  while (i <= header.size()) {
    size_t sp = header.find(' ', i);
    if (sp == std::string::npos) sp = header.size();
    words.push_back(header.substr(i, sp - i));
    i = sp + 1;
  }
  if (words.size() < 2 || (words[0] != "simplify" && words[0] != "run")) std::exit(4);
  r.type = words[0];
  const size_t length = std::stoul(words[1]);
  while (g_in.size() < eol + 1 + length)
    if (!fill()) return false;
  r.options.assign(words.begin() + 2, words.end());
  r.body = g_in.substr(eol + 1, length);
  g_in.erase(0, eol + 1 + length);
  return true;
}

/// `text` split at `sep`.
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

/// A run's answer, as the --run-* flags say.
void answer_run(std::string devices, const std::string& outputs, const std::string& failing,
                const std::string& program_file, const std::vector<std::string>& options) {
  for (const std::string& o : options)
    if (o.rfind("devices=", 0) == 0) {
      devices = o.substr(8);
      for (char& c : devices)
        if (c == ',') c = ' ';
    }
  std::map<std::string, std::string> body_of;
  for (const std::string& entry : split(outputs, ';')) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string body;
    for (const std::string& line : split(entry.substr(eq + 1), '|')) body += line + "\n";
    body_of[entry.substr(0, eq)] = body;
  }
  frame("hits", "1 fake_schedule_rule\n");
  if (!program_file.empty()) {
    std::ifstream in(program_file);
    std::stringstream text;
    text << in.rdbuf();
    frame("program", text.str());
  }
  for (const std::string& d : split(devices, ' ')) {
    if (d.empty()) continue;
    const std::string option = " device=" + d;
    if (failing.find(d) != std::string::npos) {
      const std::string body = "RuntimeError: fake device failure\nwhere: fake_device.py:7\n";
      write_all("error " + std::to_string(body.size()) + option + "\n" + body);
    } else {
      const std::string& body = body_of[d];
      write_all("outputs " + std::to_string(body.size()) + option + "\n" + body);
    }
  }
  frame("ok", "");
}

bool holds_const(const std::string& body, const std::string& marker) {
  const std::string needle = "CONST " + marker + " ";
  return body.find(needle) != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = "echo", marker, hello = "normal", capabilities = "hits", tolerances, bounds,
              declines, forms, devices, run_outputs, run_error, run_program, device_limits;
  double hello_delay = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--mode") mode = value;
    if (flag == "--marker") marker = value;
    if (flag == "--hello") hello = value;
    if (flag == "--hello-delay") hello_delay = std::stod(value);
    if (flag == "--capabilities") capabilities = value;
    if (flag == "--tolerances") tolerances = value;
    if (flag == "--bounds") bounds = value;
    if (flag == "--declines") declines = value;
    if (flag == "--forms") forms = value;
    if (flag == "--devices") devices = value;
    if (flag == "--run-outputs") run_outputs = value;
    if (flag == "--run-error") run_error = value;
    if (flag == "--run-program") run_program = value;
    if (flag == "--device-limits") device_limits = value;
  }
  if (hello == "slow") std::this_thread::sleep_for(std::chrono::duration<double>(hello_delay));
  if (hello == "none") {
    while (fill()) {
    }
    return 0;
  }
  if (hello == "bad")
    frame("hello", "name: fake\n");  // no protocol line
  else if (hello != "none")
    frame("hello", "protocol: 1\nname: fake\nversion: fake pid " + std::to_string(::getpid()) +
                       "\ncapabilities: " + capabilities + "\n" +
                       (tolerances.empty() ? "" : "tolerances: " + tolerances + "\n") +
                       (declines.empty() ? "" : "declines: " + declines + "\n") +
                       (forms.empty() ? "" : "forms: " + forms + "\n") +
                       (devices.empty() ? "" : "devices: " + devices + "\n") +
                       (device_limits.empty() ? "" : "device-limits: " + device_limits + "\n"));
  int served = 0;
  Request r;
  while (next_request(r)) {
    ++served;
    if (r.type == "run") {
      answer_run(devices, run_outputs, run_error, run_program, r.options);
      continue;
    }
    const std::string act = marker.empty() || holds_const(r.body, marker) ? mode : "echo";
    bool wants_bounds = false;
    for (const std::string& o : r.options) wants_bounds = wants_bounds || o == "bounds=1";
    if (wants_bounds && !bounds.empty()) {
      std::string lines = bounds;
      for (char& c : lines)
        if (c == ';') c = '\n';
      frame("bounds", lines + "\n");
    }
    if (act == "exit") {
      std::fputs("fake: exiting on the marker\n", stderr);
      std::exit(3);
    } else if (act == "noisy-exit") {
      // More than a pipe holds: the client must drain stderr while it waits.
      const std::string noise(100000, 'x');
      std::fputs(noise.c_str(), stderr);
      std::fputs("\nlast words\n", stderr);
      std::exit(3);
    } else if (act == "segv") {
      std::fputs("fake: crashing on the marker\n", stderr);
      std::raise(SIGSEGV);
    } else if (act == "hang") {
      while (true) ::pause();
    } else if (act == "garbage") {
      write_all("this is not a frame\n");
    } else if (act == "unknown-frame") {
      frame("banana", "");
    } else if (act == "unparsable") {
      frame("ok", "%0 = FROBNICATE : int32\n");
    } else if (act == "not-sink") {
      frame("ok",
            "%x = PARAM slot=0 in : int32[2]\n%f = FLIP %x axes=[0] : int32[2]\n"
            "%r = REALIZE %f : void\n");
    } else if (act == "bad-hits") {
      frame("hits", "many fake_rule_a\n");
      frame("ok", r.body);
    } else if (act == "unsupported") {
      frame("unsupported", "fake: CONST " + marker + " is not supported\n");
    } else if (act == "error") {
      frame("error",
            "ValueError: fake failure on the marker\nwhere: fake_rules.py:42\n"
            "Traceback (most recent call last):\n  File \"fake_rules.py\", line 42\n");
    } else {
      std::string hits = "1 fake_rule_a\n" + std::to_string(served) + " requests_served\n";
      for (const std::string& o : r.options) hits += "1 option:" + o + "\n";
      if (r.body.starts_with("@forms ")) {
        std::istringstream words(r.body.substr(7, r.body.find('\n') - 7));
        for (std::string w; words >> w;) hits += "1 form:" + w + "\n";
      }
      frame("hits", "2 fake_rule_a\n1 fake_rule_b\n");
      frame("log", "echoing the kernel back\n");
      frame("hits", hits);
      frame("ok", r.body);
    }
  }
  return 0;
}
