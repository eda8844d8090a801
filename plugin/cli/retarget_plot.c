/* `rigkit retarget --plot DIR`: one SVG per clip, written by hand (plain SVG 1.1 text).
 *
 * Per contact joint two panels on one time axis: its height above the target's ground (FK-only
 * dashed grey, written output solid) and, inside each contact interval, its horizontal drift from
 * the interval's first frame (the foot skate), with the 5 mm line. Contact intervals are shaded.
 * The caption gives the largest skate before and after IK and a verdict. */
#include "retarget_batch.h"

#include <string.h>

enum { WIDTH = 960, LEFT = 70, RIGHT = 20, TOP = 78, HEIGHT_PANEL = 120, DRIFT_PANEL = 80,
       GAP = 16, ROW_GAP = 46 };

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

/* Appends a number with `decimals` decimals, locale-independent. */
static void num(GString *s, double v, int decimals) {
  char fmt[8], buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_snprintf(fmt, sizeof fmt, "%%.%df", decimals);
  if (!isfinite(v))
    v = 0;
  g_ascii_formatd(buf, sizeof buf, fmt, v);
  if (strcmp(buf, "-0") == 0 || strcmp(buf, "-0.0") == 0 || strcmp(buf, "-0.00") == 0)
    memmove(buf, buf + 1, strlen(buf));
  g_string_append(s, buf);
}

static void text_escaped(GString *s, const char *t) {
  g_autofree char *e = g_markup_escape_text(t, -1);
  g_string_append(s, e);
}

typedef struct panel {
  double x0, y0, w, h;    /* pixels */
  double vmin, vmax;      /* value range (mm) */
  size_t frames;
} panel;

static double px(const panel *p, double f) {
  return p->x0 + (p->frames > 1 ? p->w * f / (double)(p->frames - 1) : 0);
}

static double py(const panel *p, double v) {
  return p->y0 + p->h - p->h * (v - p->vmin) / (p->vmax - p->vmin);
}

/* A "nice" tick step for a range. */
static double tick_step(double range, int ticks) {
  const double raw = range / ticks;
  const double mag = pow(10, floor(log10(raw)));
  const double r = raw / mag;
  return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static void frame_and_ticks(GString *s, const panel *p, const char *label) {
  g_string_append(s, "<rect x=\"");
  num(s, p->x0, 1);
  g_string_append(s, "\" y=\"");
  num(s, p->y0, 1);
  g_string_append(s, "\" width=\"");
  num(s, p->w, 1);
  g_string_append(s, "\" height=\"");
  num(s, p->h, 1);
  g_string_append(s, "\" fill=\"none\" stroke=\"#444\" stroke-width=\"0.8\"/>\n");
  const double step = tick_step(p->vmax - p->vmin, 4);
  for (double v = ceil(p->vmin / step) * step; v <= p->vmax + 1e-9; v += step) {
    g_string_append(s, "<line x1=\"");
    num(s, p->x0, 1);
    g_string_append(s, "\" x2=\"");
    num(s, p->x0 + p->w, 1);
    g_string_append(s, "\" y1=\"");
    num(s, py(p, v), 1);
    g_string_append(s, "\" y2=\"");
    num(s, py(p, v), 1);
    g_string_append(s, "\" stroke=\"#ddd\" stroke-width=\"0.6\"/>\n<text x=\"");
    num(s, p->x0 - 4, 1);
    g_string_append(s, "\" y=\"");
    num(s, py(p, v) + 3.5, 1);
    g_string_append(s, "\" text-anchor=\"end\" class=\"t\">");
    num(s, v, step < 1 ? 1 : 0);
    g_string_append(s, "</text>\n");
  }
  g_string_append(s, "<text x=\"");
  num(s, p->x0 - 50, 1);
  g_string_append(s, "\" y=\"");
  num(s, p->y0 + p->h / 2, 1);
  g_string_append(s, "\" transform=\"rotate(-90 ");
  num(s, p->x0 - 50, 1);
  g_string_append_c(s, ' ');
  num(s, p->y0 + p->h / 2, 1);
  g_string_append(s, ")\" text-anchor=\"middle\" class=\"t\">");
  text_escaped(s, label);
  g_string_append(s, "</text>\n");
}

static void shade(GString *s, const panel *p, const rk__rt_plot_track *t) {
  for (size_t i = 0; i < t->interval_count; i++) {
    const double a = px(p, t->intervals[i].first), z = px(p, t->intervals[i].last);
    g_string_append(s, "<rect x=\"");
    num(s, a, 1);
    g_string_append(s, "\" y=\"");
    num(s, p->y0, 1);
    g_string_append(s, "\" width=\"");
    num(s, fmax(z - a, 1.0), 1);
    g_string_append(s, "\" height=\"");
    num(s, p->h, 1);
    g_string_append(s, "\" fill=\"#c8e6c9\" fill-opacity=\"0.7\"/>\n");
  }
}

/* A polyline of values v[f] for frames where `on` (NULL: all) holds; gaps break the line. */
static void line(GString *s, const panel *p, const double *v, const bool *on, const char *colour,
                 bool dashed) {
  g_string_append(s, "<path d=\"");
  bool pen = false;
  for (size_t f = 0; f < p->frames; f++) {
    if (on && !on[f]) {
      pen = false;
      continue;
    }
    g_string_append_c(s, pen ? 'L' : 'M');
    num(s, px(p, (double)f), 1);
    g_string_append_c(s, ' ');
    num(s, py(p, fmin(fmax(v[f], p->vmin), p->vmax)), 1);
    pen = true;
  }
  g_string_append_printf(s, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s/>\n", colour,
                         dashed ? "1.2" : "1.6", dashed ? " stroke-dasharray=\"5 3\"" : "");
}

/* One track's series: heights above the ground and, inside its intervals, the horizontal drift
 * from each interval's first frame (mm), FK-only and output. */
typedef struct series {
  double *h_fk, *h_ik, *d_fk, *d_ik;
  bool *on; /* inside an interval */
  double hmin, hmax, dmax;
} series;

static void track_series(const rk__rt_plot *p, const rk__rt_plot_track *t, series *v) {
  const size_t nf = p->frames;
  double *h_fk = v->h_fk, *h_ik = v->h_ik, *d_fk = v->d_fk, *d_ik = v->d_ik;
  bool *on = v->on;
  double hmin = 0, hmax = 0, dmax = 6.0;
  for (size_t f = 0; f < nf; f++) {
    h_fk[f] = 1000.0 * (t->fk[f].y - p->ground);
    h_ik[f] = 1000.0 * (t->ik[f].y - p->ground);
    hmin = fmin(hmin, fmin(h_fk[f], h_ik[f]));
    hmax = fmax(hmax, fmax(h_fk[f], h_ik[f]));
    on[f] = false;
    d_fk[f] = d_ik[f] = 0;
  }
  for (size_t i = 0; i < t->interval_count; i++) {
    const int a = t->intervals[i].first, z = t->intervals[i].last;
    if (a < 0 || z >= (int)nf || a > z)
      continue;
    for (int f = a; f <= z; f++) {
      on[f] = true;
      d_fk[f] = 1000.0 * hypot(t->fk[f].x - t->fk[a].x, t->fk[f].z - t->fk[a].z);
      d_ik[f] = 1000.0 * hypot(t->ik[f].x - t->ik[a].x, t->ik[f].z - t->ik[a].z);
      dmax = fmax(dmax, fmax(d_fk[f], d_ik[f]));
    }
  }
  v->hmin = hmin;
  v->hmax = hmax;
  v->dmax = dmax;
}

/* Row k of the plot: the joint's name, its height and drift panels, contact shading, the rest
 * height and 5 mm lines, and the time axis. */
static void draw_track(GString *s, const rk__rt_plot *p, size_t k, series *v) {
  const size_t nf = p->frames;
  const double row_h = HEIGHT_PANEL + GAP + DRIFT_PANEL + ROW_GAP;
  const rk__rt_plot_track *t = &p->tracks[k];
  const char *col = colours[k % G_N_ELEMENTS(colours)];
  track_series(p, t, v);
  double hmin = v->hmin, hmax = v->hmax, dmax = v->dmax;
  const double *h_fk = v->h_fk, *h_ik = v->h_ik, *d_fk = v->d_fk, *d_ik = v->d_ik;
  const bool *on = v->on;
  if (hmax - hmin < 10)
    hmax = hmin + 10;
  const double y = TOP + (double)k * row_h;
  panel hp = {LEFT, y + 14, WIDTH - LEFT - RIGHT, HEIGHT_PANEL, hmin, hmax * 1.05, nf};
  panel dp = {LEFT, y + 14 + HEIGHT_PANEL + GAP, WIDTH - LEFT - RIGHT, DRIFT_PANEL, 0,
              dmax * 1.1, nf};
  g_string_append(s, "<text x=\"");
  num(s, LEFT, 1);
  g_string_append(s, "\" y=\"");
  num(s, y + 10, 1);
  g_string_append_printf(s, "\" class=\"c\" fill=\"%s\" font-weight=\"bold\">", col);
  text_escaped(s, t->joint);
  g_string_append(s, "</text>\n");
  shade(s, &hp, t);
  shade(s, &dp, t);
  frame_and_ticks(s, &hp, "height (mm)");
  frame_and_ticks(s, &dp, "drift (mm)");
  /* rest height (where a planted joint stands) and the 5 mm skate line */
  g_string_append(s, "<line x1=\"");
  num(s, hp.x0, 1);
  g_string_append(s, "\" x2=\"");
  num(s, hp.x0 + hp.w, 1);
  g_string_append(s, "\" y1=\"");
  num(s, py(&hp, 1000.0 * t->rest_height), 1);
  g_string_append(s, "\" y2=\"");
  num(s, py(&hp, 1000.0 * t->rest_height), 1);
  g_string_append(s, "\" stroke=\"#795548\" stroke-width=\"0.8\" stroke-dasharray=\"2 2\"/>\n");
  if (5.0 <= dp.vmax) {
    g_string_append(s, "<line x1=\"");
    num(s, dp.x0, 1);
    g_string_append(s, "\" x2=\"");
    num(s, dp.x0 + dp.w, 1);
    g_string_append(s, "\" y1=\"");
    num(s, py(&dp, 5.0), 1);
    g_string_append(s, "\" y2=\"");
    num(s, py(&dp, 5.0), 1);
    g_string_append(s, "\" stroke=\"#e53935\" stroke-width=\"0.8\" stroke-dasharray=\"4 2\"/>\n");
  }
  line(s, &hp, h_fk, NULL, "#888", true);
  line(s, &hp, h_ik, NULL, col, false);
  line(s, &dp, d_fk, on, "#888", true);
  line(s, &dp, d_ik, on, col, false);
  /* time axis under the drift panel */
  const double dur = p->fps > 0 && nf > 1 ? (double)(nf - 1) / p->fps : 0;
  if (dur > 0) {
    const double step = tick_step(dur, 8);
    for (double tt = 0; tt <= dur + 1e-9; tt += step) {
      const double x = px(&dp, tt * p->fps);
      g_string_append(s, "<text x=\"");
      num(s, x, 1);
      g_string_append(s, "\" y=\"");
      num(s, dp.y0 + dp.h + 13, 1);
      g_string_append(s, "\" text-anchor=\"middle\" class=\"t\">");
      num(s, tt, step < 1 ? (step < 0.1 ? 2 : 1) : 0);
      g_string_append(s, " s</text>\n");
    }
  }
}

char *rk__rt_plot_svg(const rk__rt_plot *p) {
  const size_t nf = p->frames;
  const size_t rows = p->track_count;
  const double row_h = HEIGHT_PANEL + GAP + DRIFT_PANEL + ROW_GAP;
  const double height = TOP + (rows ? (double)rows * row_h : 60) + 30;
  GString *s = g_string_new(NULL);
  g_string_append_printf(s,
                         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                         "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                         "<style>.t{font-size:11px;fill:#333}.h{font-size:15px;font-weight:bold}"
                         ".c{font-size:12px}</style>\n"
                         "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                         WIDTH, (int)height, WIDTH, (int)height);
  g_string_append(s, "<text x=\"12\" y=\"22\" class=\"h\">");
  text_escaped(s, p->title);
  g_string_append(s, "</text>\n");
  /* Verdict: planted feet hold within 5 mm, pins within 1 mm, no limit violated. */
  size_t intervals = 0;
  for (size_t k = 0; k < rows; k++)
    intervals += p->tracks[k].interval_count;
  const bool clean =
      p->skate_ik_max_mm <= 5.0 && p->goal_error_max_mm <= 1.0 && p->limit_violations == 0;
  const char *verdict = intervals == 0 ? "no planted feet" : clean ? "clean" : "check";
  const char *vcol = intervals == 0 ? "#777" : clean ? "#2e7d32" : "#e65100";
  g_string_append(s, "<text x=\"12\" y=\"42\" class=\"c\">");
  g_string_append_printf(s, "%zu frames at ", nf);
  num(s, p->fps, 3);
  g_string_append(s, " fps. Foot skate max: FK only ");
  num(s, p->skate_fk_max_mm, 2);
  g_string_append(s, " mm, written output ");
  num(s, p->skate_ik_max_mm, 2);
  g_string_append(s, " mm. IK goal error max ");
  num(s, p->goal_error_max_mm, 3);
  g_string_append_printf(s, " mm. Joint limit violations %zu. ", p->limit_violations);
  g_string_append_printf(s, "<tspan fill=\"%s\" font-weight=\"bold\">%s</tspan></text>\n", vcol,
                         verdict);
  g_string_append(s, "<text x=\"12\" y=\"60\" class=\"t\">dashed grey: FK only (no IK); solid: "
                     "the written output read back; green: contact intervals (planted); drift = "
                     "horizontal distance from the contact's first frame</text>\n");
  if (rows == 0) {
    g_string_append_printf(s, "<text x=\"12\" y=\"%d\" class=\"c\">no foot joints to plot</text>\n",
                           TOP + 20);
  }
  series v;
  v.h_fk = g_new(double, nf ? nf : 1);
  v.h_ik = g_new(double, nf ? nf : 1);
  v.d_fk = g_new(double, nf ? nf : 1);
  v.d_ik = g_new(double, nf ? nf : 1);
  v.on = g_new(bool, nf ? nf : 1);
  for (size_t k = 0; k < rows; k++)
    draw_track(s, p, k, &v);
  g_free(v.h_fk);
  g_free(v.h_ik);
  g_free(v.d_fk);
  g_free(v.d_ik);
  g_free(v.on);
  g_string_append(s, "</svg>\n");
  return g_string_free(s, FALSE);
}
