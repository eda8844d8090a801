/* SHA-256 in the processor's SHA instructions where it has them, else GLib's (sha256.h). The
 * padding and the hex digits are the standard's (FIPS 180-4); the block function is the usual
 * SHA-NI sequence: the state kept as ABEF and CDGH, four rounds a step with the message schedule
 * computed by sha256msg1 / sha256msg2. */
#include "sha256.h"

#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define RK_SHA256_NI 1
#endif

#ifdef RK_SHA256_NI
static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/* Hashes `blocks` 64-byte blocks into state (a..h). */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_ni(uint32_t state[8],
                                                                  const uint8_t *p,
                                                                  size_t blocks) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_loadu_si128((const __m128i *)(const void *)&state[0]);
  __m128i s1 = _mm_loadu_si128((const __m128i *)(const void *)&state[4]);
  tmp = _mm_shuffle_epi32(tmp, 0xB1);       /* CDAB */
  s1 = _mm_shuffle_epi32(s1, 0x1B);         /* EFGH */
  __m128i s0 = _mm_alignr_epi8(tmp, s1, 8); /* ABEF */
  s1 = _mm_blend_epi16(s1, tmp, 0xF0);      /* CDGH */
  for (; blocks > 0; blocks--, p += 64) {
    const __m128i abef = s0, cdgh = s1;
    __m128i w[4];
    for (int i = 0; i < 16; i++) {
      if (i < 4) {
        w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), swap);
      } else { /* W[i] from W[i-4..i-1], kept in a ring of four */
        __m128i m = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
        m = _mm_add_epi32(m, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
        w[i & 3] = _mm_sha256msg2_epu32(m, w[(i + 3) & 3]);
      }
      __m128i msg =
          _mm_add_epi32(w[i & 3], _mm_loadu_si128((const __m128i *)(const void *)&round_k[4 * i]));
      s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
      msg = _mm_shuffle_epi32(msg, 0x0E);
      s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
    }
    s0 = _mm_add_epi32(s0, abef);
    s1 = _mm_add_epi32(s1, cdgh);
  }
  tmp = _mm_shuffle_epi32(s0, 0x1B);   /* FEBA */
  s1 = _mm_shuffle_epi32(s1, 0xB1);    /* DCHG */
  s0 = _mm_blend_epi16(tmp, s1, 0xF0); /* DCBA */
  s1 = _mm_alignr_epi8(s1, tmp, 8);    /* HGFE */
  _mm_storeu_si128((__m128i *)(void *)&state[0], s0);
  _mm_storeu_si128((__m128i *)(void *)&state[4], s1);
}
#endif

bool rk__sha256_uses_cpu(void) {
#ifdef RK_SHA256_NI
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
    return false; /* SSSE3, SSE4.1 */
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)); /* SHA */
#else
  return false;
#endif
}

char *rk__sha256_hex(const void *data, size_t size) {
#ifdef RK_SHA256_NI
  if (rk__sha256_uses_cpu()) {
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const uint8_t *p = data;
    const size_t full = size / 64, rest = size % 64;
    blocks_ni(h, p, full);
    /* The last bytes, 0x80, zeros, and the length in bits (big-endian): one or two blocks. */
    uint8_t tail[128] = {0};
    if (rest)
      memcpy(tail, p + 64 * full, rest);
    tail[rest] = 0x80;
    const size_t tail_len = rest < 56 ? 64 : 128;
    const uint64_t bits = (uint64_t)size * 8;
    for (int i = 0; i < 8; i++)
      tail[tail_len - 1 - (size_t)i] = (uint8_t)(bits >> (8 * i));
    blocks_ni(h, tail, tail_len / 64);
    char *hex = g_malloc(65);
    for (int i = 0; i < 8; i++)
      g_snprintf(hex + 8 * i, 9, "%08x", (unsigned)h[i]);
    return hex;
  }
#endif
  return g_compute_checksum_for_data(G_CHECKSUM_SHA256, data, size);
}
