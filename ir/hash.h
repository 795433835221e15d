/** \file Portable hashing and seeding: the same numbers on every platform and compiler
 * (std::hash and the standard distributions are not), so seeds reproduce everywhere. */
#pragma once

#include <cstdint>
#include <string_view>

namespace uopfuzz::ir {

/// splitmix64's finalizer: a full 64-bit avalanche of x.
inline uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The next number of the splitmix64 sequence whose state is `state`.
inline uint64_t splitmix64(uint64_t& state) {
  return mix64(state += 0x9e3779b97f4a7c15ull);
}

/// 64-bit FNV-1a of some bytes.
inline uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace uopfuzz::ir
