/* Numbers of BVH text (importers/src/bvh_lexer.h): the one-pass decimal reader and the token
 * parser give the same bits as strtod for what exporters write (fixed decimals, leading zeros,
 * signed zeros, long mantissas that must fall back) and refuse what is not a number. */
#include "import_test.h"

#include "../../importers/src/bvh_lexer.h"

#include <stdint.h>
#include <string.h>

static void assert_same_as_strtod(const char *tok) {
  double got = 0;
  cr_assert(rk__bvh_parse_double(tok, strlen(tok), &got), "'%s' refused", tok);
  const double want = strtod(tok, NULL);
  cr_assert(memcmp(&got, &want, sizeof got) == 0, "'%s': %.17g, strtod %.17g", tok, got, want);
}

Test(bvh_lexer, decimals_read_bit_identical_to_strtod) {
  static const char *fixed[] = {"0",       "-0",         "-0.0000", "+0.5",    "000.000100",
                                "1.",      ".5",         "-.25",    "9007199254740993",
                                "123456789012345", "1234567890123456", "0.1234567890123456789",
                                "1e3",     "-2.5E-3",    "1e-320",  "179769313486231570000000000",
                                "0.0000000000000000000001", "0.00000000000000000000001"};
  for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
    assert_same_as_strtod(fixed[i]);
  GRand *rng = g_rand_new_with_seed(22);
  char buf[64];
  for (int i = 0; i < 200000; i++) {
    const int decimals = g_rand_int_range(rng, 0, 12);
    const double mag = pow(10, g_rand_int_range(rng, -6, 9));
    snprintf(buf, sizeof buf, "%.*f", decimals, g_rand_double_range(rng, -mag, mag));
    assert_same_as_strtod(buf);
    /* digits alone, up to 18 of them, with the point anywhere */
    const int n = g_rand_int_range(rng, 1, 19), dot = g_rand_int_range(rng, 0, n + 1);
    size_t k = 0;
    for (int d = 0; d < n; d++) {
      if (d == dot)
        buf[k++] = '.';
      buf[k++] = (char)('0' + g_rand_int_range(rng, 0, 10));
    }
    buf[k] = '\0';
    assert_same_as_strtod(buf);
  }
  g_rand_free(rng);
}

Test(bvh_lexer, non_numbers_are_refused) {
  static const char *bad[] = {"", "-", ".", "+.", "1.2.3", "12a", "nanx", "--1", "1e"};
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    double v = 0;
    cr_assert_not(rk__bvh_parse_double(bad[i], strlen(bad[i]), &v), "'%s' read as %g", bad[i], v);
  }
}

Test(bvh_lexer, the_plain_reader_stops_where_the_decimal_does) {
  const char *text = "-12.5000 7";
  double v = 0;
  const char *q = rk__bvh_scan_plain(text, text + strlen(text), &v);
  cr_assert_eq(q, text + 8);
  cr_assert_eq(v, -12.5);
  const char *long_mantissa = "1234567890123456"; /* 16 digits: strtod decides */
  cr_assert_null(rk__bvh_scan_plain(long_mantissa, long_mantissa + 16, &v));
}
