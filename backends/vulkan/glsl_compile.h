/** \file GLSL -> SPIR-V in process through glslang's C++ API (Debian's shared libshaderc
 * is built against another glslang and crashes), validated with SPIRV-Tools in debug
 * builds (or with UOPFUZZ_VULKAN_VALIDATE_SPIRV=1). Thread-safe. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/result.h"

namespace uopfuzz::backends::vulkan {

/// SPIR-V 1.5 for Vulkan 1.2 from a GLSL 450 compute shader; errors carry glslang's log.
Result<std::vector<uint32_t>> compile_glsl(const std::string& source);

/// SPIR-V assembly text of a module (for listings).
std::string disassemble(const std::vector<uint32_t>& spirv);

}  // namespace uopfuzz::backends::vulkan
