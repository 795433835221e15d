// Tests for the simplifier's fixed-point expansion of REQUANTIZE, its planted bugs and constant folding of the quantized conversions.
#include <gtest/gtest.h>
