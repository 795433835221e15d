// A second fixed input for scripts/mutation-score.sh (never compiled), for the sample's
// spread over files.
int clamp(int x, int hi) {
  if (x < 0) return 0;
  return x >= hi ? hi - 1 : x;
}
