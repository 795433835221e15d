/** \file The frames of the external-simplifier protocol (docs/external-simplifier.md):
 * `<type> <length>[ <key>=<value>...]\n<body>`, written and read incrementally. */
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace uopfuzz::sut {

using FrameOptions = std::vector<std::pair<std::string, std::string>>;

struct Frame {
  std::string type;
  FrameOptions options;
  std::string body;
};

/// The bytes of one frame. Option keys and values must hold no space or newline.
std::string frame_text(std::string_view type, std::string_view body,
                       const FrameOptions& options = {});

struct FrameRead {
  enum class Status { Incomplete, Complete, Malformed };
  Status status = Status::Incomplete;
  Frame frame;        ///< when Complete
  size_t size = 0;    ///< bytes of the buffer the frame took, when Complete
  std::string error;  ///< what is wrong with the header, when Malformed
};

/// The frame at the start of `buffer`: Incomplete while its header line or body has not
/// all arrived, Malformed as soon as the header cannot be one (a type that is not a
/// lowercase word, a length that is not a decimal count, an option without '=', a header
/// line longer than any real one).
FrameRead read_frame(std::string_view buffer);

}  // namespace uopfuzz::sut
