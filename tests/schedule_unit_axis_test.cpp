// Tests for the shape normalization stage (removed axes recorded) and the unit-axis reduce rule.
#include <gtest/gtest.h>
