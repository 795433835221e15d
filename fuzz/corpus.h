/** \file The findings corpus: one minimized .uop per finding, named by the hash of its
 * graph, written atomically (temporary file, fsync, rename) so a campaign killed at any
 * moment leaves only complete files. */
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/kernel.h"
#include "ir/result.h"

namespace uopfuzz::fuzz {

/// 16 hex digits of a 64-bit FNV-1a hash of the kernel's printed graph (not its header):
/// the same minimized case found twice gets the same name.
std::string content_hash(const ir::Kernel& kernel);

/// Writes `kernel` (header included) to DIR/<content_hash>.uop atomically; creates DIR
/// if needed. An existing file of that name is left as it is (same case). Returns the
/// path, or an error (unwritable directory, a header that would not round-trip).
Result<std::string> write_case(const std::string& dir, const ir::Kernel& kernel);

/// Writes `text` to DIR/NAME atomically (a hidden temporary in DIR, fsync, rename, fsync of
/// DIR), replacing a file of that name; creates DIR if needed. Returns the path.
Result<std::string> write_file_atomically(const std::string& dir, const std::string& name,
                                          const std::string& text);

/// Removes the temporaries (".NAME.PID.tmp") that write_case left in DIR when its process
/// was killed mid-write, those of processes that no longer run. Returns how many it
/// removed. A campaign calls it before it starts; replays never see them (not .uop).
int remove_stale_temporaries(const std::string& dir);

}  // namespace uopfuzz::fuzz
