#include "sut/external.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "sut/child_process.h"
#include "sut/frames.h"

namespace uopfuzz::sut {

namespace {

using Clock = ChildProcess::Clock;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

double elapsed(Clock::time_point since, Clock::time_point until = Clock::now()) {
  return std::chrono::duration<double>(until - since).count();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    lines.push_back(text.substr(0, eol));
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return lines;
}

/// The words of `text` split at blanks (runs of blanks make no empty words).
std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  for (size_t at = 0; at < text.size();) {
    const size_t sp = std::min(text.find(' ', at), text.size());
    if (sp > at) words.push_back(text.substr(at, sp - at));
    at = sp + 1;
  }
  return words;
}

/// A decimal integer, saturated to the range of __int128 (a simplifier's bounds may be any
/// integer); false when `s` is not one.
bool parse_wide(std::string_view s, __int128& out) {
  constexpr __int128 kMax = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  if (s.empty()) return false;
  __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const int d = c - '0';
    v = v > (kMax - d) / 10 ? kMax : v * 10 + d;
  }
  out = negative ? -v : v;
  return true;
}

/// What a child's hello says about it.
struct Hello {
  std::string name, version, stage;
  Capabilities capabilities;
};

/// The hello body's `key: value` lines; nullopt with `error` set when it is not one.
std::optional<Hello> parse_hello(std::string_view body, std::string& error) {
  Hello h;
  std::string protocol;
  bool named = false;
  for (std::string_view line : lines_of(body)) {
    line = trim(line);
    if (line.empty()) continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      error = fmt::format("a hello line without 'key: value': '{}'", line);
      return std::nullopt;
    }
    std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "protocol") protocol = value;
    if (key == "name") named = true, h.name = value;
    if (key == "version") h.version = value;
    if (key == "stage") h.stage = value;
    if (key == "capabilities")
      for (std::string_view word : words_of(value)) {
        if (word == "disable") h.capabilities.disable = true;
        if (word == "stop-after") h.capabilities.stop_after = true;
        if (word == "bounds") h.capabilities.bounds = true;
        if (word == "run") h.capabilities.run = true;
        if (word == "split-reduce-threshold") h.capabilities.split_reduce_threshold = true;
      }
    if (key == "device-limits")
      for (std::string_view word : words_of(value)) {
        const size_t eq = word.find('=');
        __int128 limit = 0;
        if (eq != std::string_view::npos && parse_wide(word.substr(eq + 1), limit) && limit >= 0)
          h.capabilities.device_limits[std::string(word.substr(0, eq))] =
              static_cast<int64_t>(std::min<__int128>(limit, INT64_MAX));
      }
    if (key == "devices")
      for (std::string_view word : words_of(value)) h.capabilities.devices.emplace_back(word);
    if (key == "forms")
      for (std::string_view word : words_of(value)) h.capabilities.forms.emplace_back(word);
    if (key == "tolerances" && value.find("zero-sign") != std::string_view::npos)
      h.capabilities.zero_sign_free = true;
    if (key == "declines")
      for (std::string_view word : words_of(value)) h.capabilities.declines.emplace(word);
  }
  if (protocol != "1") {
    error = protocol.empty() ? "a hello without 'protocol: 1'"
                             : fmt::format("protocol {} (uopfuzz speaks protocol 1)", protocol);
    return std::nullopt;
  }
  if (!named) {
    error = "a hello without 'name:'";
    return std::nullopt;
  }
  return h;
}

/// Adds a hits body's `<count> <rule name>` lines to `hits`; false when one is not such a line.
bool add_hits(std::string_view body, std::map<std::string, uint64_t>& hits, std::string& error) {
  for (std::string_view line : lines_of(body)) {
    line = trim(line);
    if (line.empty()) continue;
    const size_t sp = line.find(' ');
    std::string_view count = line.substr(0, sp);
    std::string_view rule =
        sp == std::string_view::npos ? std::string_view{} : trim(line.substr(sp + 1));
    uint64_t n = 0;
    bool digits = !count.empty() && count.size() <= 18;
    for (char c : count) {
      if (c < '0' || c > '9') digits = false;
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!digits || rule.empty()) {
      error = fmt::format("a hits line that is not '<count> <rule name>': '{}'", line);
      return false;
    }
    hits[std::string(rule)] += n;
  }
  return true;
}

/// Adds a bounds body's `<node position> <lo> <hi>` lines to `out`, the positions naming
/// nodes of `topo` (the request's node lines); false when one is not such a line. lo > hi
/// is a claim too: the node takes no value (a RANGE of end 0), and any value it takes
/// proves the claim wrong.
bool add_bounds(std::string_view body, const std::vector<ir::UOp>& topo,
                std::vector<ClaimedBounds>& out, std::string& error) {
  for (std::string_view line : lines_of(body)) {
    line = trim(line);
    if (line.empty()) continue;
    const std::vector<std::string_view> fields = words_of(line);
    __int128 k = 0, lo = 0, hi = 0;
    if (fields.size() != 3 || !parse_wide(fields[0], k) || !parse_wide(fields[1], lo) ||
        !parse_wide(fields[2], hi) || k < 0 || k >= static_cast<__int128>(topo.size())) {
      error =
          fmt::format("a bounds line that is not '<node> <lo> <hi>' of the request: '{}'", line);
      return false;
    }
    out.push_back(ClaimedBounds{topo[static_cast<size_t>(k)], lo, hi});
  }
  return true;
}

/// The value of a frame's option `key`, "" when it has none.
std::string option_of(const Frame& frame, std::string_view key) {
  for (const auto& [k, v] : frame.options)
    if (k == key) return v;
  return "";
}

/// A run request's body: the graph with an `@input` line for every input buffer, an
/// `@var` line for every variable and the `@forms` line of `forms` (the empty line: none).
std::string run_request_text(ir::UOp root, const ir::Inputs& inputs, const std::string& forms) {
  ir::Kernel k;
  k.root = root;
  if (!forms.empty()) k.header.extra.emplace_back("forms", forms);
  for (const auto& [slot, buffer] : inputs.buffers) {
    ir::GivenInput given{slot, buffer.dtype(), {}};
    for (size_t i = 0; i < buffer.size(); ++i) given.values.push_back(buffer.get(i));
    k.header.inputs.push_back(std::move(given));
  }
  for (const auto& [name, v] : inputs.vars) k.header.vars.emplace_back(name, v);
  return ir::print_kernel(k);
}

/// The dtype of the kernel's output PARAM of slot `slot` (void when there is none).
ir::DType output_dtype(ir::UOp root, int slot) {
  for (ir::UOp u : ir::toposort(root))
    if (u.op() == ir::Op::Param && u.arg<ir::ParamArg>().slot == slot) return u.dtype();
  return ir::DType{};
}

/// An outputs body's `<k> [v, ...]` lines, read as the `@output` lines of the request's
/// graph would be (so each is checked against its output's dtype and size).
bool read_outputs(ir::Context& ctx, ir::UOp root, std::string_view body,
                  std::map<int, ir::Buffer>& outputs, std::string& error) {
  std::string text;
  for (std::string_view line : lines_of(body))
    if (!trim(line).empty()) text += fmt::format("@output {}\n", trim(line));
  text += ir::print_graph(root);
  auto parsed = ir::parse_kernel(ctx, text);
  if (!parsed.ok()) {
    error = fmt::format("outputs that do not fit the graph: {}", parsed.error().message);
    return false;
  }
  for (const ir::ExpectedOutput& o : parsed->kernel.header.outputs) {
    const ir::UOp src = ir::is_tensor_program(root) ? parsed->kernel.root.src(o.slot) : ir::UOp{};
    const ir::DType dt = src ? src.dtype() : output_dtype(parsed->kernel.root, o.slot);
    ir::Buffer b(dt, o.values.size());
    for (size_t i = 0; i < o.values.size(); ++i) b.set(i, o.values[i]);
    outputs[o.slot] = std::move(b);
  }
  return true;
}

/// A rule name that fits in a `disable=` option (names are comma-separated, spaces end it).
bool sendable_rule_name(const std::string& name) {
  return !name.empty() && name.find_first_of(" ,\n\r\t") == std::string::npos;
}

class External final : public Simplifier {
 public:
  External(std::string name, std::string command, const ExternalOptions& options)
      : name_(std::move(name)), command_(std::move(command)), options_(options) {}

  std::string name() const override { return name_; }

  std::string version() override {
    std::lock_guard lock(mutex_);
    if (ensure_child()) return "";
    return hello_.version;
  }

  Capabilities capabilities() override {
    std::lock_guard lock(mutex_);
    if (ensure_child()) return {};
    return hello_.capabilities;
  }

  std::string stage() override {
    std::lock_guard lock(mutex_);
    if (ensure_child()) return "";
    return hello_.stage;
  }

  Outcome simplify(ir::Context& ctx, ir::UOp root,
                   const simplifier::SimplifyOptions& options) override {
    std::lock_guard lock(mutex_);
    Outcome out;
    if (auto failure = ensure_child()) {
      out.failure = std::move(failure);
      return out;
    }
    const std::string request = frame_text(
        "simplify", forms_line(options.forms) + ir::print_graph(root), request_options(options));
    out.failure =
        converse(request, out.child_seconds, out.protocol_seconds,
                 [&](const Frame& frame, const std::string& logs, std::optional<Failure>& failed) {
                   std::string error;
                   if (frame.type == "hits") {
                     if (!add_hits(frame.body, out.result.hits, error))
                       failed = protocol_error(error);
                     return false;
                   }
                   if (frame.type == "bounds") {
                     if (!add_bounds(frame.body, ir::toposort(root), out.bounds, error))
                       failed = protocol_error(error);
                     return false;
                   }
                   if (frame.type != "ok") {
                     failed = final_failure(frame, logs);
                     return true;
                   }
                   auto parsed = ir::parse_kernel(ctx, frame.body);
                   if (!parsed.ok()) {
                     failed = protocol_error(fmt::format(
                         "the rewrite does not parse: {}:{}: {}", parsed.error().loc.line,
                         parsed.error().loc.col, parsed.error().message));
                   } else if (parsed->kernel.root.op() != ir::Op::Sink) {
                     failed = protocol_error(
                         fmt::format("the rewrite is not a kernel: its root is a {}, not a SINK",
                                     ir::op_name(parsed->kernel.root.op())));
                   } else {
                     out.result.root = parsed->kernel.root;
                     for (const auto& [rule, n] : out.result.hits) out.result.steps += n;
                     child_->clear_stderr_tail();
                   }
                   return true;
                 });
    return out;
  }

  RunAnswer run(ir::Context& ctx, ir::UOp root, const ir::Inputs& inputs,
                const RunRequest& request) override {
    std::lock_guard lock(mutex_);
    RunAnswer out;
    if (auto failure = ensure_child()) {
      out.failure = std::move(failure);
      return out;
    }
    if (!hello_.capabilities.run) {
      out.failure = Failure{FailureKind::Unsupported,
                            fmt::format("[no-run] {} runs no graph end to end", name_), "", ""};
      return out;
    }
    FrameOptions opts;
    if (!request.devices.empty())
      opts.emplace_back("devices", fmt::format("{}", fmt::join(request.devices, ",")));
    if (request.program) opts.emplace_back("program", "1");
    if (hello_.capabilities.split_reduce_threshold && request.split_reduce_threshold)
      opts.emplace_back("split-reduce-threshold", std::to_string(*request.split_reduce_threshold));
    const std::string text =
        frame_text("run", run_request_text(root, inputs, offered_forms(request.forms)), opts);
    out.failure = converse(
        text, out.child_seconds, out.protocol_seconds,
        [&](const Frame& frame, const std::string& logs, std::optional<Failure>& failed) {
          std::string error;
          const std::string device = option_of(frame, "device");
          if (frame.type == "hits") {
            if (!add_hits(frame.body, out.hits, error)) failed = protocol_error(error);
          } else if (frame.type == "program" && option_of(frame, "missing") == "1") {
            std::vector<std::string_view> lines = lines_of(frame.body);
            out.program_missing = lines.empty() ? "no reason given" : std::string(trim(lines[0]));
          } else if (frame.type == "program") {
            // Kernels in a shape uopfuzz's verifier rejects (a gated index outside an INDEX)
            // are kernels .uop cannot express, not a broken conversation.
            auto parsed = ir::parse_program(ctx, frame.body);
            if (parsed.ok())
              out.program = std::move(parsed.value());
            else
              out.program_missing =
                  "[no-uop-form] its kernels do not read as a Program: " + parsed.error().message;
          } else if (frame.type == "outputs" && !device.empty()) {
            DeviceRun d{device, {}, std::nullopt};
            if (read_outputs(ctx, root, frame.body, d.outputs, error))
              out.devices.push_back(std::move(d));
            else
              failed = protocol_error(fmt::format("device {}: {}", device, error));
          } else if (frame.type == "error" && !device.empty()) {
            out.devices.push_back(DeviceRun{device, {}, raised(frame.body, logs)});
          } else if (frame.type == "ok") {
            child_->clear_stderr_tail();
            return true;
          } else {
            failed = final_failure(frame, logs);
            return true;
          }
          return false;
        });
    return out;
  }

 private:
  enum class Read { Frame, Eof, Timeout, Malformed };

  /// One request and its answer. `take` gets every frame but `log` (kept for a crash's
  /// log) and returns true once the answer is complete; it ends the exchange with a failure
  /// of its own by setting `failed`. The child dying, hanging or breaking the protocol fails
  /// it here. Time waiting for the child counts in `child_seconds`, the rest in
  /// `protocol_seconds`.
  template <class Take>
  std::optional<Failure> converse(const std::string& request, double& child_seconds,
                                  double& protocol_seconds, Take take) {
    const auto start = Clock::now();
    const auto deadline = start + seconds(options_.timeout_s);
    const ChildProcess::Io wrote = child_->write_all(request, deadline);
    protocol_seconds += elapsed(start);
    if (wrote == ChildProcess::Io::Timeout) return hang();
    if (wrote == ChildProcess::Io::Eof) return died("");
    std::string logs;
    while (true) {
      Frame frame;
      std::string error;
      const auto waiting = Clock::now();
      const Read read = read_next(frame, error, deadline);
      const auto arrived = Clock::now();
      child_seconds += elapsed(waiting, arrived);
      switch (read) {
        case Read::Eof: return died(logs);
        case Read::Timeout: return hang();
        case Read::Malformed: return protocol_error(error);
        case Read::Frame: break;
      }
      if (frame.type == "log") {
        logs += frame.body;
        continue;
      }
      std::optional<Failure> failed;
      const bool done = take(frame, logs, failed);
      protocol_seconds += elapsed(arrived);
      if (failed || done) return failed;
    }
  }

  /// A terminal frame that gives no result: `unsupported` (the child goes on), `error` (a
  /// crash; the child goes on), or any other frame, out of the protocol.
  Failure final_failure(const Frame& frame, const std::string& logs) {
    if (frame.type == "unsupported") {
      std::vector<std::string_view> lines = lines_of(frame.body);
      std::string reason(lines.empty() ? std::string_view{} : trim(lines[0]));
      child_->clear_stderr_tail();
      return Failure{FailureKind::Unsupported, reason.empty() ? "no reason given" : reason, "",
                     logs};
    }
    if (frame.type == "error") return raised(frame.body, logs);
    return protocol_error(fmt::format("an unexpected '{}' frame", frame.type));
  }

  /// The forms of `wanted` the hello offers, space-separated ("" when none).
  std::string offered_forms(const std::vector<std::string>& wanted) const {
    std::vector<std::string> sent;
    for (const std::string& f : wanted)
      if (std::find(hello_.capabilities.forms.begin(), hello_.capabilities.forms.end(), f) !=
          hello_.capabilities.forms.end())
        sent.push_back(f);
    return fmt::format("{}", fmt::join(sent, " "));
  }

  /// A simplify request body's `@forms` header line ("" when no offered form is wanted).
  std::string forms_line(const std::vector<std::string>& wanted) const {
    const std::string forms = offered_forms(wanted);
    return forms.empty() ? "" : "@forms " + forms + "\n";
  }

  FrameOptions request_options(const simplifier::SimplifyOptions& options) const {
    FrameOptions opts;
    if (hello_.capabilities.disable && !options.disabled.empty()) {
      std::vector<std::string> names;
      for (const std::string& n : options.disabled)
        if (sendable_rule_name(n)) names.push_back(n);
      std::sort(names.begin(), names.end());
      if (!names.empty()) opts.emplace_back("disable", fmt::format("{}", fmt::join(names, ",")));
    }
    if (hello_.capabilities.stop_after && options.stop_after)
      opts.emplace_back("stop-after", std::to_string(*options.stop_after));
    if (hello_.capabilities.bounds && options.bounds) opts.emplace_back("bounds", "1");
    return opts;
  }

  /// The next frame the child sends (bytes after it stay buffered for the next call).
  Read read_next(Frame& frame, std::string& error, Clock::time_point deadline) {
    while (true) {
      FrameRead r = read_frame(buffer_);
      if (r.status == FrameRead::Status::Complete) {
        frame = std::move(r.frame);
        buffer_.erase(0, r.size);
        return Read::Frame;
      }
      if (r.status == FrameRead::Status::Malformed) {
        error = std::move(r.error);
        return Read::Malformed;
      }
      switch (child_->read_some(buffer_, deadline)) {
        case ChildProcess::Io::Ok: break;
        case ChildProcess::Io::Eof: return Read::Eof;
        case ChildProcess::Io::Timeout: return Read::Timeout;
      }
    }
  }

  /// Starts the child and reads its hello, unless this process already has one. A child
  /// inherited through fork belongs to the parent: its pipes are closed, never used.
  std::optional<Failure> ensure_child() {
    if (child_ && !child_->owned_here()) forget_child();
    if (child_) return std::nullopt;
    auto started = ChildProcess::start(command_);
    if (!started.ok()) return Failure{FailureKind::Crash, started.error().message, "", ""};
    child_ = std::move(started.value());
    Frame frame;
    std::string error;
    switch (read_next(frame, error, Clock::now() + seconds(options_.startup_timeout_s))) {
      case Read::Eof: {
        Failure f = died("");
        f.reason += " before its hello";
        return f;
      }
      case Read::Timeout: {
        Failure f = hang();
        f.reason = fmt::format("no hello within {} s", options_.startup_timeout_s);
        return f;
      }
      case Read::Malformed: return protocol_error(error);
      case Read::Frame: break;
    }
    if (frame.type != "hello")
      return protocol_error(fmt::format("a '{}' frame where its hello belongs", frame.type));
    auto hello = parse_hello(frame.body, error);
    if (!hello) return protocol_error(error);
    hello_ = std::move(*hello);
    child_->clear_stderr_tail();
    return std::nullopt;
  }

  void forget_child() {
    if (child_ && !child_->owned_here()) child_->abandon();
    child_.reset();
    buffer_.clear();
    hello_ = {};
  }

  /// The child's stdout closed: it died (or is about to). Reaps it and says how it ended.
  Failure died(const std::string& logs) {
    std::string how = child_->reap_and_describe(1.0);
    Failure f{FailureKind::Crash, std::move(how), "", logs + child_->stderr_tail()};
    forget_child();
    return f;
  }

  Failure hang() {
    child_->kill_group();
    Failure f{FailureKind::Hang, fmt::format("no answer within {} s", options_.timeout_s), "",
              child_->stderr_tail()};
    forget_child();
    return f;
  }

  /// The child said something outside the protocol: it may be out of step, so it goes.
  Failure protocol_error(std::string why) {
    child_->kill_group();
    Failure f{FailureKind::Protocol, std::move(why), "", child_->stderr_tail()};
    forget_child();
    return f;
  }

  /// An `error` frame: the simplifier raised on this kernel and goes on serving.
  Failure raised(std::string_view body, const std::string& logs) {
    std::vector<std::string_view> lines = lines_of(body);
    Failure f{FailureKind::Crash, std::string(lines.empty() ? "" : trim(lines[0])), "", ""};
    if (f.reason.empty()) f.reason = "an error without a message";
    for (size_t i = 1; i < lines.size(); ++i) {
      std::string_view line = trim(lines[i]);
      if (line.starts_with("where:")) {
        f.where = trim(line.substr(6));
        break;
      }
    }
    child_->drain_stderr(false, Clock::now());
    f.log = logs + std::string(body) + child_->stderr_tail();
    child_->clear_stderr_tail();
    return f;
  }

  const std::string name_, command_;
  const ExternalOptions options_;
  std::mutex mutex_;  // one request at a time on the one child
  std::unique_ptr<ChildProcess> child_;
  std::string buffer_;  // what the child wrote that no frame has taken yet
  Hello hello_;
};

}  // namespace

std::shared_ptr<Simplifier> make_external(std::string name, std::string command,
                                          const ExternalOptions& options) {
  return std::make_shared<External>(std::move(name), std::move(command), options);
}

}  // namespace uopfuzz::sut
