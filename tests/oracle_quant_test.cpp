// Tests for the tensor oracle's quantized REDUCE_AXIS, the quantized input filler, rangeify's quantized reduce lowering, and the metamorphic check (check/quant_metamorphic.h).
#include <gtest/gtest.h>
