/* SHA-256 digests of imports (importers/src/sha256.h): the processor's SHA instructions give
 * GLib's digest for every length around the block and padding boundaries and for megabytes, and
 * the standard's test vectors. */
#include "import_test.h"

#include "../../importers/src/sha256.h"

#include <string.h>

static void assert_as_glib(const guchar *data, size_t n) {
  g_autofree char *got = rk__sha256_hex(data, n);
  g_autofree char *want = g_compute_checksum_for_data(G_CHECKSUM_SHA256, data, n);
  cr_assert_str_eq(got, want, "%zu bytes", n);
}

Test(sha256, standard_vectors) {
  g_autofree char *empty = rk__sha256_hex("", 0);
  cr_assert_str_eq(empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  g_autofree char *abc = rk__sha256_hex("abc", 3);
  cr_assert_str_eq(abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  g_autofree char *two_blocks = rk__sha256_hex(two, strlen(two));
  cr_assert_str_eq(two_blocks, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, every_length_and_megabytes_as_glib) {
  const size_t big = 3 * 1024 * 1024 + 77;
  g_autofree guchar *data = g_malloc(big);
  GRand *rng = g_rand_new_with_seed(256);
  for (size_t i = 0; i < big; i++)
    data[i] = (guchar)g_rand_int_range(rng, 0, 256);
  g_rand_free(rng);
  for (size_t n = 0; n <= 300; n++)
    assert_as_glib(data + n % 7, n); /* unaligned starts too */
  assert_as_glib(data, big);
  cr_log_info("SHA instructions used: %s", rk__sha256_uses_cpu() ? "yes" : "no");
}
