/* `rigkit retarget --plot DIR`: one SVG per clip, written by hand (plain SVG 1.1 text).
 *
 * Per foot two panels on one time axis: the height of its sole's lowest point above the floor
 * (FK-only dashed grey, the written output's mesh solid, the floor a red line) and, while a point
 * is planted, the points' horizontal drift from their contacts' first frames (the foot skate),
 * with the 5 mm line. The phases are shaded (heel strike, flat, toe-off, pivot, slide). The
 * caption gives the verdict and warnings of the report and the figures behind them. */
#include "retarget_batch.h"

#include <string.h>

enum { WIDTH = 960, LEFT = 70, RIGHT = 20, TOP = 92, HEIGHT_PANEL = 120, DRIFT_PANEL = 80,
       GAP = 16, ROW_GAP = 46 };

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

/* A number with `decimals` decimals in buf, locale-independent, never "-0" (returns buf). */
static const char *fmt_num(char buf[G_ASCII_DTOSTR_BUF_SIZE], double v, int decimals) {
  char fmt[8];
  g_snprintf(fmt, sizeof fmt, "%%.%df", decimals);
  if (!isfinite(v))
    v = 0;
  g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, fmt, v);
  if (strcmp(buf, "-0") == 0 || strcmp(buf, "-0.0") == 0 || strcmp(buf, "-0.00") == 0)
    memmove(buf, buf + 1, strlen(buf));
  return buf;
}

/* Appends a number with `decimals` decimals, locale-independent. */
static void num(GString *s, double v, int decimals) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append(s, fmt_num(buf, v, decimals));
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

/* A horizontal line across a panel at value v. */
static void level(GString *s, const panel *p, double v, const char *colour, const char *width,
                  const char *dash) {
  g_string_append(s, "<line x1=\"");
  num(s, p->x0, 1);
  g_string_append(s, "\" x2=\"");
  num(s, p->x0 + p->w, 1);
  g_string_append(s, "\" y1=\"");
  num(s, py(p, v), 1);
  g_string_append(s, "\" y2=\"");
  num(s, py(p, v), 1);
  g_string_append_printf(s, "\" stroke=\"%s\" stroke-width=\"%s\"%s%s%s/>\n", colour, width,
                         dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
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
    level(s, p, v, "#ddd", "0.6", NULL);
    g_string_append(s, "<text x=\"");
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

/* Shading of each phase but swing (rk_foot_phase order). */
static const char *const phase_colours[RK_FOOT_PHASES] = {NULL,      "#bbdefb", "#c8e6c9",
                                                         "#ffe0b2", "#e1bee7", "#fff59d"};

/* The phases of a track as bands behind a panel: one rectangle per run of a phase. */
static void shade(GString *s, const panel *p, const rk__rt_plot_track *t) {
  for (size_t f = 0; f < p->frames;) {
    size_t g = f;
    while (g + 1 < p->frames && t->phase[g + 1] == t->phase[f])
      g++;
    const char *col = t->phase[f] < RK_FOOT_PHASES ? phase_colours[t->phase[f]] : NULL;
    if (col) {
      const double a = px(p, (double)f), z = px(p, (double)g);
      g_string_append(s, "<rect x=\"");
      num(s, a, 1);
      g_string_append(s, "\" y=\"");
      num(s, p->y0, 1);
      g_string_append(s, "\" width=\"");
      num(s, fmax(z - a, 1.0), 1);
      g_string_append(s, "\" height=\"");
      num(s, p->h, 1);
      g_string_append_printf(s, "\" fill=\"%s\" fill-opacity=\"0.8\"/>\n", col);
    }
    f = g + 1;
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

/* One track's series in mm: heights above the floor, drifts (NAN: not planted). */
typedef struct series {
  double *h_fk, *h_ik, *d_fk, *d_ik;
  bool *on; /* a point planted */
  double hmin, hmax, dmax;
} series;

static void track_series(const rk__rt_plot *p, const rk__rt_plot_track *t, series *v) {
  double hmin = 0, hmax = 0, dmax = 6.0;
  for (size_t f = 0; f < p->frames; f++) {
    v->h_fk[f] = 1000.0 * (t->low_fk[f] - p->floor);
    v->h_ik[f] = 1000.0 * (t->low_ik[f] - p->floor);
    hmin = fmin(hmin, fmin(v->h_fk[f], v->h_ik[f]));
    hmax = fmax(hmax, fmax(v->h_fk[f], v->h_ik[f]));
    v->on[f] = isfinite(t->drift_ik[f]);
    v->d_fk[f] = v->on[f] ? t->drift_fk[f] : 0;
    v->d_ik[f] = v->on[f] ? t->drift_ik[f] : 0;
    if (v->on[f])
      dmax = fmax(dmax, fmax(v->d_fk[f], v->d_ik[f]));
  }
  v->hmin = hmin;
  v->hmax = hmax;
  v->dmax = dmax;
}

/* The time axis under a panel. */
static void time_axis(GString *s, const rk__rt_plot *p, const panel *dp) {
  const size_t nf = p->frames;
  const double dur = p->fps > 0 && nf > 1 ? (double)(nf - 1) / p->fps : 0;
  if (dur <= 0)
    return;
  const double step = tick_step(dur, 8);
  for (double tt = 0; tt <= dur + 1e-9; tt += step) {
    g_string_append(s, "<text x=\"");
    num(s, px(dp, tt * p->fps), 1);
    g_string_append(s, "\" y=\"");
    num(s, dp->y0 + dp->h + 13, 1);
    g_string_append(s, "\" text-anchor=\"middle\" class=\"t\">");
    num(s, tt, step < 1 ? (step < 0.1 ? 2 : 1) : 0);
    g_string_append(s, " s</text>\n");
  }
}

/* Row k of the plot: the foot's label, its height and drift panels, the phases, the floor and
 * 5 mm lines, and the time axis. */
static void draw_track(GString *s, const rk__rt_plot *p, size_t k, series *v) {
  const size_t nf = p->frames;
  const double row_h = HEIGHT_PANEL + GAP + DRIFT_PANEL + ROW_GAP;
  const rk__rt_plot_track *t = &p->tracks[k];
  const char *col = colours[k % G_N_ELEMENTS(colours)];
  track_series(p, t, v);
  double hmin = v->hmin, hmax = v->hmax;
  if (hmax - hmin < 10)
    hmax = hmin + 10;
  const double y = TOP + (double)k * row_h;
  panel hp = {LEFT, y + 14, WIDTH - LEFT - RIGHT, HEIGHT_PANEL, hmin, hmax * 1.05, nf};
  panel dp = {LEFT, y + 14 + HEIGHT_PANEL + GAP, WIDTH - LEFT - RIGHT, DRIFT_PANEL, 0,
              v->dmax * 1.1, nf};
  g_string_append(s, "<text x=\"");
  num(s, LEFT, 1);
  g_string_append(s, "\" y=\"");
  num(s, y + 10, 1);
  g_string_append_printf(s, "\" class=\"c\" fill=\"%s\" font-weight=\"bold\">", col);
  text_escaped(s, t->label);
  g_string_append(s, "</text>\n");
  shade(s, &hp, t);
  shade(s, &dp, t);
  frame_and_ticks(s, &hp, "sole above floor (mm)");
  frame_and_ticks(s, &dp, "drift (mm)");
  level(s, &hp, 0.0, "#e53935", "1", NULL);
  if (5.0 <= dp.vmax)
    level(s, &dp, 5.0, "#e53935", "1", "4 2");
  line(s, &hp, v->h_fk, NULL, "#888", true);
  line(s, &hp, v->h_ik, NULL, col, false);
  line(s, &dp, v->d_fk, v->on, "#888", true);
  line(s, &dp, v->d_ik, v->on, col, false);
  time_axis(s, p, &dp);
}

/* The caption: the verdict (as the report gives it) and its warnings, the figures, the key. */
static void caption(GString *s, const rk__rt_plot *p) {
  const bool clean = !strcmp(p->verdict, "clean"), failed = !strcmp(p->verdict, "failed");
  const char *vcol = clean ? "#2e7d32" : failed ? "#c62828" : "#e65100";
  g_string_append_printf(s, "<text x=\"12\" y=\"42\" class=\"c\"><tspan fill=\"%s\" "
                            "font-weight=\"bold\">", vcol);
  text_escaped(s, p->verdict);
  g_string_append(s, "</tspan>");
  if (*p->warnings) {
    g_string_append(s, ": ");
    text_escaped(s, p->warnings);
  }
  char fps[G_ASCII_DTOSTR_BUF_SIZE], low[G_ASCII_DTOSTR_BUF_SIZE], pitch[G_ASCII_DTOSTR_BUF_SIZE],
      skate[G_ASCII_DTOSTR_BUF_SIZE], skate_fk[G_ASCII_DTOSTR_BUF_SIZE], goal[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf(
      s,
      "</text>\n<text x=\"12\" y=\"58\" class=\"c\">%zu frames at %s fps. Planted soles (median) "
      "%s mm above the floor; foot pitch off the source's (p95) %s deg; skate max %s mm (FK only "
      "%s mm); pins missed by %s mm</text>\n",
      p->frames, fmt_num(fps, p->fps, 3), fmt_num(low, p->planted_low_median_mm, 1),
      fmt_num(pitch, p->foot_pitch_p95_deg, 1), fmt_num(skate, p->skate_ik_max_mm, 2),
      fmt_num(skate_fk, p->skate_fk_max_mm, 2), fmt_num(goal, p->goal_error_max_mm, 2));
  g_string_append(s, "<text x=\"12\" y=\"74\" class=\"t\">dashed grey: FK only (no IK); solid: "
                     "the written output read back (its mesh); red: the floor, the 5 mm skate line; "
                     "blue heel strike, green flat, orange toe-off, violet pivot, yellow "
                     "slide</text>\n");
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
  caption(s, p);
  if (rows == 0) {
    g_string_append_printf(s, "<text x=\"12\" y=\"%d\" class=\"c\">no feet to plot</text>\n",
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
