#include "sut/frames.h"

#include <fmt/format.h>

namespace uopfuzz::sut {

namespace {

// A header is a type, a length and a few short options; anything longer is not a header
// (and waiting for its newline would turn garbage into a hang).
constexpr size_t kMaxHeader = 4096;
constexpr size_t kMaxBody = size_t{1} << 30;

bool is_type_char(char c) {
  return (c >= 'a' && c <= 'z') || c == '-' || c == '_';
}

std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    if (c >= 0x20 && c < 0x7f)
      out += c;
    else
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  }
  return s.size() > 40 ? out + "..." : out;
}

}  // namespace

std::string frame_text(std::string_view type, std::string_view body, const FrameOptions& options) {
  std::string out = fmt::format("{} {}", type, body.size());
  for (const auto& [key, value] : options) out += fmt::format(" {}={}", key, value);
  out += '\n';
  out += body;
  return out;
}

FrameRead read_frame(std::string_view buffer) {
  FrameRead r;
  const size_t eol = buffer.find('\n');
  if (eol == std::string_view::npos) {
    if (buffer.size() > kMaxHeader) {
      r.status = FrameRead::Status::Malformed;
      r.error =
          fmt::format("no frame header in the first {} bytes: '{}'", kMaxHeader, shown(buffer));
    }
    return r;
  }
  auto malformed = [&](std::string why) {
    r.status = FrameRead::Status::Malformed;
    r.error = fmt::format("{} in frame header '{}'", why, shown(buffer.substr(0, eol)));
    return r;
  };
  std::string_view header = buffer.substr(0, eol);
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i <= header.size()) {
    const size_t sp = std::min(header.find(' ', i), header.size());
    words.push_back(header.substr(i, sp - i));
    i = sp + 1;
  }
  if (words.size() < 2) return malformed("no length");
  for (std::string_view w : words)
    if (w.empty()) return malformed("an empty field");
  for (char c : words[0])
    if (!is_type_char(c)) return malformed("a type that is not a lowercase word");
  size_t length = 0;
  for (char c : words[1]) {
    if (c < '0' || c > '9') return malformed("a length that is not a decimal count");
    length = length * 10 + static_cast<size_t>(c - '0');
    if (length > kMaxBody) return malformed("a body over 1 GiB");
  }
  for (size_t w = 2; w < words.size(); ++w) {
    const size_t eq = words[w].find('=');
    if (eq == std::string_view::npos || eq == 0)
      return malformed("an option that is not key=value");
    r.frame.options.emplace_back(words[w].substr(0, eq), words[w].substr(eq + 1));
  }
  if (buffer.size() - (eol + 1) < length) return FrameRead{};
  r.status = FrameRead::Status::Complete;
  r.frame.type = words[0];
  r.frame.body = buffer.substr(eol + 1, length);
  r.size = eol + 1 + length;
  return r;
}

}  // namespace uopfuzz::sut
