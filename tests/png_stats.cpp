// Usage: png_stats FILE.png
// Prints "width W height H nonwhite F nonbackground G colors C": F the fraction of pixels
// that are not (near) white, G the fraction that differ from the most common colour (the
// page background, whatever it is), C the number of distinct RGB colours. The dashboard's
// screenshot test reads it to tell a rendered page from a blank or failed one.
#include <png.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.png\n", argv[0]);
    return 2;
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, argv[1])) {
    std::fprintf(stderr, "%s: error: %s\n", argv[1], image.message);
    return 2;
  }
  image.format = PNG_FORMAT_RGB;
  std::vector<png_byte> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    std::fprintf(stderr, "%s: error: %s\n", argv[1], image.message);
    return 2;
  }
  const size_t n = size_t(image.width) * image.height;
  std::unordered_map<unsigned, size_t> colours;
  size_t nonwhite = 0;
  for (size_t i = 0; i < n; ++i) {
    const png_byte* p = &pixels[3 * i];
    // Near white: antialiasing leaves 250..254 around white areas, which is still white.
    if (p[0] < 250 || p[1] < 250 || p[2] < 250) ++nonwhite;
    ++colours[unsigned(p[0]) << 16 | unsigned(p[1]) << 8 | p[2]];
  }
  size_t background = 0;
  for (const auto& [c, k] : colours) background = std::max(background, k);
  std::printf("width %u height %u nonwhite %.4f nonbackground %.4f colors %zu\n", image.width,
              image.height, n ? double(nonwhite) / double(n) : 0.0,
              n ? double(n - background) / double(n) : 0.0, colours.size());
  return 0;
}
