// Tests for the generator's quantized kernels and tensor programs.
#include <gtest/gtest.h>
