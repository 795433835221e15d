// Tests for the cpu backend's QUANTIZE, DEQUANTIZE, REQUANTIZE and quantized memory, bit-exact with the oracle.
#include <gtest/gtest.h>
