#include "backends/vulkan/glsl_compile.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <cstdlib>
#include <mutex>
#include <spirv-tools/libspirv.hpp>

namespace uopfuzz::backends::vulkan {

namespace {

bool validate_spirv() {
#ifndef NDEBUG
  return true;
#else
  static const bool on = [] {
    const char* e = std::getenv("UOPFUZZ_VULKAN_VALIDATE_SPIRV");
    return e && *e && std::string(e) != "0";
  }();
  return on;
#endif
}

}  // namespace

Result<std::vector<uint32_t>> compile_glsl(const std::string& source) {
  static std::once_flag init;
  // glslang's process state is set up once and never torn down (kernels compile until exit).
  std::call_once(init, [] { glslang::InitializeProcess(); });
  glslang::TShader shader(EShLangCompute);
  const char* text = source.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages))
    return Error{std::string("internal error: glslang rejected the generated GLSL: ") +
                 shader.getInfoLog()};
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages))
    return Error{std::string("internal error: glslang could not link: ") + program.getInfoLog()};
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = true;  // the driver optimizes; this keeps compiles fast
  options.validate = false;
  spv::SpvBuildLogger logger;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &logger, &options);
  if (spirv.empty())
    return Error{"internal error: glslang produced no SPIR-V: " + logger.getAllMessages()};
  if (validate_spirv()) {
    spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
    std::string msgs;
    tools.SetMessageConsumer(
        [&](spv_message_level_t, const char*, const spv_position_t& pos, const char* m) {
          msgs += std::to_string(pos.index) + ": " + m + "\n";
        });
    if (!tools.Validate(spirv))
      return Error{"internal error: the SPIR-V does not validate: " + msgs};
  }
  return spirv;
}

std::string disassemble(const std::vector<uint32_t>& spirv) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string text;
  if (!tools.Disassemble(
          spirv, &text,
          SPV_BINARY_TO_TEXT_OPTION_INDENT | SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES))
    return "";
  return text;
}

}  // namespace uopfuzz::backends::vulkan
