#!/usr/bin/env bash
# Installs the Debian packages uopfuzz needs, and only those that are missing.
# Idempotent and quiet when everything is already there. Run as root (or with sudo).
set -euo pipefail

packages=(
  cmake ninja-build make g++ clang-14 libclang-rt-14-dev
  # make format-check (CI) and make tidy
  clang-format clang-tidy
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-14-dev
  # Vulkan backend: loader + headers, Mesa's lavapipe (a CPU Vulkan device, so it runs
  # without a GPU), glslang's C++ API (GLSL -> SPIR-V), SPIRV-Tools (validation), the
  # validation layers (tests) and vulkaninfo. glslang-tools: glslang's CMake config
  # refers to /usr/bin/glslangValidator and fails without it.
  libvulkan-dev mesa-vulkan-drivers glslang-dev glslang-tools spirv-tools vulkan-validationlayers vulkan-tools
  # Only for the dashboard screenshot test (ctest dashboard.screenshot): headless Chromium
  # renders the page (its fontconfig brings the DejaVu fonts), libpng reads the screenshot.
  chromium libpng-dev
  # The tinygrad adapter (adapters/tinygrad: Python standard library plus tinygrad)
  python3
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh them once if apt cannot find a package.
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/uopfuzz-apt.log 2>&1; then
  $sudo apt-get update -qq >>/tmp/uopfuzz-apt.log 2>&1
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/uopfuzz-apt.log 2>&1 || {
    echo "install-deps: apt-get failed; see /tmp/uopfuzz-apt.log" >&2
    tail -n 20 /tmp/uopfuzz-apt.log >&2
    exit 1
  }
fi
