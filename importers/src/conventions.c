/* The conventions a file states or implies and the readers convert from: axes (names, the basis
 * change to rigkit's Y-up), length units (names, the unit that gives a skeleton a human height)
 * and frame rates (from key times); with the public parsers of axis and unit names. */
#include "conventions.h"

#include <rigkit/importers.h>

rk_mat3 rk__basis_from_axes(int up, int up_sign, int front, int front_sign, int coord,
                            int coord_sign) {
  rk_mat3 a = {{0}};
  /* Row 0 (x') reads the file's coord axis, row 1 (y') its up axis, row 2 (z') its front. */
  a.m[coord * 3 + 0] = coord_sign;
  a.m[up * 3 + 1] = up_sign;
  a.m[front * 3 + 2] = front_sign;
  return a;
}

rk_mat3 rk__basis_for_up(int axis, int sign) {
  rk_mat3 r;
  if (axis == 1)
    r = sign > 0 ? rk_mat3_identity() : rk_mat3_rot_x(RK_PI);
  else if (axis == 2) /* Rx(-90) takes +Z to +Y, Rx(+90) takes -Z to +Y */
    r = rk_mat3_rot_x(sign > 0 ? -RK_PI / 2 : RK_PI / 2);
  else /* Rz(+90) takes +X to +Y, Rz(-90) takes -X to +Y */
    r = rk_mat3_rot_z(sign > 0 ? RK_PI / 2 : -RK_PI / 2);
  for (int i = 0; i < 9; i++) /* exact signed permutation, no 1e-17 residue */
    r.m[i] = nearbyint(r.m[i]);
  return r;
}

const char *rk__axis_name(int axis, int sign) {
  static const char *const pos[3] = {"X", "Y", "Z"}, *const neg[3] = {"-X", "-Y", "-Z"};
  if (axis < 0 || axis > 2)
    return "?";
  return sign < 0 ? neg[axis] : pos[axis];
}

bool rk_import_parse_axis(const char *text, int *axis, int *sign) {
  if (!text)
    return false;
  int s = 1;
  if (*text == '+' || *text == '-') {
    s = *text == '-' ? -1 : 1;
    text++;
  }
  if (text[0] == '\0' || text[1] != '\0')
    return false;
  const char c = g_ascii_toupper(text[0]);
  if (c < 'X' || c > 'Z')
    return false;
  *axis = c - 'X';
  *sign = s;
  return true;
}

typedef struct unit_entry {
  const char *name;
  double metres;
} unit_entry;

/* CMU's ASF skeletons use 1/0.45 inch per unit (their BVH conversions keep it). */
static const unit_entry units[] = {
    {"m", 1.0},     {"dm", 0.1},      {"cm", 0.01}, {"mm", 0.001},
    {"in", 0.0254}, {"ft", 0.3048},   {"cmu", 0.0254 / 0.45},
};

bool rk__unit_from_name(const char *name, double *metres_per_unit) {
  if (!name)
    return false;
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if (g_ascii_strcasecmp(name, units[i].name) == 0) {
      *metres_per_unit = units[i].metres;
      return true;
    }
  if (g_ascii_strcasecmp(name, "inch") == 0 || g_ascii_strcasecmp(name, "inches") == 0) {
    *metres_per_unit = 0.0254;
    return true;
  }
  if (g_ascii_strcasecmp(name, "metres") == 0 || g_ascii_strcasecmp(name, "meters") == 0) {
    *metres_per_unit = 1.0;
    return true;
  }
  return false;
}

const char *rk__unit_name(double metres_per_unit) {
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if (fabs(metres_per_unit - units[i].metres) <= 1e-9 * units[i].metres)
      return units[i].name;
  return NULL;
}

const char *rk__unit_guess_from_height(double height, double *metres_per_unit, bool *fits) {
  const double lo = 1.4, hi = 2.1;
  double best_dist = INFINITY;
  size_t best = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
    const double h = height * units[i].metres;
    if (h >= lo && h <= hi) {
      *metres_per_unit = units[i].metres;
      *fits = true;
      return units[i].name;
    }
    /* Distance in log scale to the human range. */
    const double d = h < lo ? log(lo / h) : log(h / hi);
    if (d < best_dist) {
      best_dist = d;
      best = i;
    }
  }
  *fits = false;
  *metres_per_unit = units[best].metres;
  return units[best].name;
}

bool rk_import_parse_unit(const char *text, double *metres_per_unit) {
  if (!text)
    return false;
  if (rk__unit_from_name(text, metres_per_unit))
    return true;
  char *end = NULL;
  const double v = g_ascii_strtod(text, &end);
  if (end == text || *end != '\0' || !isfinite(v) || v <= 0)
    return false;
  *metres_per_unit = v;
  return true;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static bool on_grid(const double *t, size_t m, double fps) {
  for (size_t i = 0; i < m; i++) {
    const double tol = 1e-5 + 1e-6 * fabs(t[i]);
    if (fabs(t[i] - nearbyint(t[i] * fps) / fps) > tol)
      return false;
  }
  return true;
}

static const double common_rates[] = {24, 25, 30, 48, 50, 60, 72, 90, 96, 100, 120, 144, 240,
                                      30000.0 / 1001, 24000.0 / 1001, 60000.0 / 1001};

/* A rate near r: a common one within 0.2%, else an integer within 0.1%, else r. */
static double snap_rate(double r) {
  for (size_t i = 0; i < G_N_ELEMENTS(common_rates); i++)
    if (fabs(r - common_rates[i]) <= 2e-3 * common_rates[i])
      return common_rates[i];
  if (fabs(r - nearbyint(r)) <= 1e-3 * r)
    return nearbyint(r);
  return r;
}

double rk__fps_from_times(const double *times, size_t n, bool *regular) {
  if (regular)
    *regular = false;
  if (n < 2)
    return 0;
  g_autofree double *t = g_memdup2(times, n * sizeof(double));
  qsort(t, n, sizeof(double), cmp_double);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (m == 0 || t[i] - t[m - 1] > 1e-7)
      t[m++] = t[i];
  if (m < 2)
    return 0;
  /* Dense (sampled) keys: the most common spacing is the frame time. */
  g_autofree double *dt = g_new(double, m - 1);
  for (size_t i = 1; i < m; i++)
    dt[i - 1] = t[i] - t[i - 1];
  qsort(dt, m - 1, sizeof(double), cmp_double);
  size_t best_run = 0, run = 1;
  double best = dt[0];
  for (size_t i = 1; i <= m - 1; i++) {
    if (i < m - 1 && dt[i] - dt[i - run] <= 1e-6 + 1e-4 * dt[i]) {
      run++;
      continue;
    }
    if (run > best_run) {
      best_run = run;
      best = dt[i - run + (run - 1) / 2];
    }
    run = 1;
  }
  if (2 * best_run >= m - 1 && best > 0 && best <= 0.1) {
    const double fps = snap_rate(1.0 / best);
    if (regular)
      *regular = on_grid(t, m, fps);
    return fps;
  }
  /* Sparse (hand-set) keys: the first usual rate on which every key lies. */
  for (size_t c = 0; c < G_N_ELEMENTS(common_rates) + 1000; c++) {
    const double fps = c < G_N_ELEMENTS(common_rates) ? common_rates[c]
                                                      : (double)(c - G_N_ELEMENTS(common_rates) + 1);
    if (on_grid(t, m, fps)) {
      if (regular)
        *regular = true;
      return fps;
    }
  }
  return snap_rate(1.0 / dt[0]);
}
