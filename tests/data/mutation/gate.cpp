// A fixed input for scripts/mutation-score.sh --list (never compiled): one instance of
// each mutation operator, and text it must leave alone.
#include <cstdint>

// Comments are not code: a < b && c - d == 1.
bool divides(int64_t c, int64_t end, int64_t lo) {
  const char* why = "a <= b && c % 2";  // nor are strings
  return c > 0 && end % c == 0 && lo >= 100'000;
}

int64_t span(int64_t hi, int64_t lo) {
  return hi - lo / 2;
}
