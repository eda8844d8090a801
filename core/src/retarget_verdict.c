/* Retargeting, the verdict: one table of codes and bounds on every figure of a retargeted clip
 * (what a person sees in the output, the IK's own, the contacts, the rigs, the source file's
 * repairs), each exceeded bound a warning with its code and a message, the verdict the worst of
 * them. Lengths are at human scale (a 1.75 m rig) and scale with the character; a profile's
 * [quality] group changes the bounds (rk_profile_apply_quality). */
#include "retarget_run.h"

#include <rigkit/fk.h>

#include <string.h>

/* The human height the length bounds are given at. */
#define HUMAN_M 1.75

/* One code: its default bounds (above `check` look at it, above `failed` it is wrong) and how
 * its figure is put into words. */
typedef struct code_row {
  const char *code;
  double check, failed;
  bool scaled;      /* millimetres at human scale: scaled by the character's height / 1.75 m */
  const char *what; /* the message, printf'd with the figure (and its share of the height when
                       scaled) and the bound crossed */
} code_row;

/* The table (the numbers of the quality suite: planted feet within -5..+10 mm and never more
 * than 10 mm through, pitch within 20 degrees at p95, skate <= 5 mm, pins within 1 mm). A scale 3
 * times a human's is the least a unit mistake gives (feet read as metres: 3.28) and leaves real
 * small characters alone (the 0.6 m Fox); 10 times (centimetres, inches) cannot be right. */
static const code_row table[RK_QUALITY_CODES] = {
    [RK_QUALITY_MESH_THROUGH_FLOOR] =
        {"mesh-through-floor", 5, 10, true,
         "a planted foot's mesh goes %.1f mm (%.2f%% of the character's height) through the "
         "floor (bound %.1f mm)"},
    [RK_QUALITY_FEET_FLOAT] = {"feet-float", 10, 25, true,
                               "planted feet float %.1f mm (%.2f%% of the character's height) "
                               "above the floor (median; bound %.1f mm)"},
    [RK_QUALITY_BODY_THROUGH_FLOOR] = {"body-through-floor", 10, 30, true,
                                       "the body goes %.1f mm (%.2f%% of the character's height) "
                                       "further through the floor than the source's own joints "
                                       "(scaled; bound %.1f mm)"},
    [RK_QUALITY_FOOT_PITCH] = {"foot-pitch", 20, 45, false,
                               "the feet pitch %.1f deg away from the source's (95th percentile; "
                               "bound %.0f deg)"},
    [RK_QUALITY_SKATE] = {"skate", 5, 20, true,
                          "planted sole points slide %.1f mm (%.2f%% of the character's height; "
                          "bound %.1f mm)"},
    [RK_QUALITY_GOAL_MISSED] = {"goal-missed", 1, 10, true,
                                "planted sole points miss their pins by up to %.2f mm (%.3f%% of "
                                "the character's height; bound %.2f mm)"},
    [RK_QUALITY_POSE_ERROR] = {"pose-error", 10, 50, true,
                               "the joints stand up to %.2f mm (%.2f%% of the character's height) "
                               "from the source's on rigs that correspond (bound %.1f mm)"},
    [RK_QUALITY_LEG_CANNOT_REACH] = {"leg-cannot-reach", 0, INFINITY, false,
                                     "a planted leg cannot reach its pin at %.1f%% of the frames, "
                                     "even with the pelvis moved (bound %.1f%%)"},
    [RK_QUALITY_HIP_BOB_CHANGED] = {"hip-bob-changed", 10, INFINITY, true,
                                    "the pelvis moved by up to %.1f mm (%.2f%% of the character's "
                                    "height) within a frame so that planted legs reach their pins, "
                                    "beyond the lowering eased in around them: the hip bob is not "
                                    "the source's there (bound %.1f mm)"},
    [RK_QUALITY_ALL_FRAMES_PLANTED] = {"all-frames-planted", 25, INFINITY, false,
                                       "a foot is planted at nearly every frame yet the transfer "
                                       "moves it %.0f%% of the character's height (bound %.0f%%): "
                                       "it is held where it slides; are the contact thresholds or "
                                       "the source's unit wrong?"},
    [RK_QUALITY_IMPLAUSIBLE_SCALE] = {"implausible-scale", 3, 10, false,
                                      "%s (%.2f times a human's 1.75 m; bound %.0f times): are "
                                      "the units right (--unit, --target-unit)?"},
    [RK_QUALITY_IMPORT_REPAIRED] = {"import-repaired", 0, INFINITY, false,
                                    "the source file was repaired on import: %s"},
    [RK_QUALITY_LEGS_INTERSECT] = {"legs-intersect", 10, 50, true,
                                   "the legs (of one bone each) go %.1f mm (%.2f%% of the "
                                   "character's height) through each other (bound %.1f mm)"},
};

const char *rk_retarget_verdict_name(rk_retarget_verdict verdict) {
  static const char *const names[] = {"clean", "check", "failed"};
  return (unsigned)verdict < G_N_ELEMENTS(names) ? names[verdict] : "?";
}

const char *rk_quality_code_name(rk_quality_code code) {
  return (unsigned)code < RK_QUALITY_CODES ? table[code].code : NULL;
}

int rk_quality_code_parse(const char *name) {
  for (int c = 0; name && c < RK_QUALITY_CODES; c++)
    if (!strcmp(table[c].code, name))
      return c;
  return -1;
}

void rk_quality_bounds_init(rk_quality_bounds *b) {
  for (int c = 0; c < RK_QUALITY_CODES; c++) {
    b->check[c] = table[c].check;
    b->failed[c] = table[c].failed;
  }
}

void rk_retargeter_heights(const rk_retargeter *rt, double *source_m, double *target_m) {
  if (source_m)
    *source_m = rt->smap.height;
  if (target_m)
    *target_m = rt->tmap.height;
}

static void warning_clear(gpointer p) {
  g_free(((rk_retarget_warning *)p)->message);
}

/* What a judge compares with: the bounds and the character's scale. */
typedef struct judge {
  GArray *out;
  const rk_quality_bounds *b;
  double height; /* the character's, metres */
} judge;

/* The severity of figure v for code c (CLEAN: within bounds), and the bound crossed in *bound. */
static rk_retarget_verdict severity(const judge *jg, rk_quality_code c, double v, double *bound) {
  const double k = table[c].scaled ? jg->height / HUMAN_M : 1.0;
  if (!isfinite(v) || !(v > jg->b->check[c] * k))
    return RK_RETARGET_CLEAN;
  const bool failed = v > jg->b->failed[c] * k;
  *bound = (failed ? jg->b->failed[c] : jg->b->check[c]) * k;
  return failed ? RK_RETARGET_FAILED : RK_RETARGET_CHECK;
}

static void add(judge *jg, rk_quality_code c, rk_retarget_verdict sev, char *message) {
  rk_retarget_warning w = {table[c].code, sev, message};
  g_array_append_val(jg->out, w);
}

/* Checks figure v against code c's bounds; the message gets the figure, its share of the
 * character's height when it is a length, and the bound. */
static void check(judge *jg, rk_quality_code c, double v) {
  double bound = 0;
  const rk_retarget_verdict sev = severity(jg, c, v, &bound);
  if (sev == RK_RETARGET_CLEAN)
    return;
  char *m = table[c].scaled ? g_strdup_printf(table[c].what, v, 0.1 * v / jg->height, bound)
                            : g_strdup_printf(table[c].what, v, bound);
  add(jg, c, sev, m);
}

/* How far (metres, horizontally) the transfer moves a foot planted at 98% of the frames or more
 * of a clip longer than two seconds, from its first planted frame to its last; 0 for any other
 * foot. A foot planted throughout stays where it is (a stance, a seat); one the transfer moves
 * that far was held where it slid. Measured before IK: the pins hold the output still. */
static double foot_travel(const rk_retarget_result *r, int side) {
  size_t planted = 0;
  int first = -1, last = -1;
  for (size_t f = 0; f < r->frames; f++)
    if (rk__rt_side_held(r, side, f)) {
      planted++;
      first = first < 0 ? (int)f : first;
      last = (int)f;
    }
  if (r->frames <= (size_t)(2.0 * r->fps) || planted < 0.98 * (double)r->frames)
    return 0.0;
  const rk_vec3 a = r->sole_fk[(size_t)first * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS];
  const rk_vec3 b = r->sole_fk[(size_t)last * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS];
  return rk_vec3_norm(rk__rt_horizontal(rk_vec3_sub(b, a)));
}

/* The rigs' heights against a human's: the worst factor, and which rig in words. */
static void check_scale(judge *jg, const rk_retargeter *rt) {
  const double h[2] = {rt->tmap.height, rt->smap.height};
  double worst = 1.0;
  int which = 0;
  for (int i = 0; i < 2; i++) {
    const double f = h[i] > 0 ? fmax(h[i], HUMAN_M) / fmin(h[i], HUMAN_M) : INFINITY;
    if (f > worst) {
      worst = f;
      which = i;
    }
  }
  double bound = 0;
  const rk_retarget_verdict sev = severity(jg, RK_QUALITY_IMPLAUSIBLE_SCALE, worst, &bound);
  if (sev == RK_RETARGET_CLEAN)
    return;
  g_autofree char *rig = g_strdup_printf("the %s is %.3g m tall", which ? "source" : "character",
                                         h[which]);
  add(jg, RK_QUALITY_IMPLAUSIBLE_SCALE, sev,
      g_strdup_printf(table[RK_QUALITY_IMPLAUSIBLE_SCALE].what, rig, worst, bound));
}

/* The source file's repairs, one warning listing them. */
static void check_repairs(judge *jg, const rk_asset *source) {
  if (!source)
    return;
  GString *s = g_string_new(NULL);
  size_t n = 0;
  for (size_t i = 0; i < rk_asset_note_count(source); i++)
    if (rk_asset_note_is_repair(source, i))
      g_string_append_printf(s, "%s%s", n++ ? "; " : "", rk_asset_note(source, i));
  double bound = 0;
  const rk_retarget_verdict sev = severity(jg, RK_QUALITY_IMPORT_REPAIRED, (double)n, &bound);
  if (sev != RK_RETARGET_CLEAN)
    add(jg, RK_QUALITY_IMPORT_REPAIRED, sev,
        g_strdup_printf(table[RK_QUALITY_IMPORT_REPAIRED].what, s->str));
  g_string_free(s, TRUE);
}

/* Findings from the result itself: legs out of reach, a moved pelvis (not on legs of one bone:
 * a stiff leg reaches the floor only at its length, so the pelvis always rides on it), a clip
 * planted throughout. */
static void check_result(judge *jg, const rk_retargeter *rt, const rk_retarget_result *r) {
  const rk_retarget_quality *q = &r->quality;
  if (r->frames > 0)
    check(jg, RK_QUALITY_LEG_CANNOT_REACH, 100.0 * (double)q->unreachable_frames / (double)r->frames);
  const bool stiff = rt->side[0].knee == rt->side[0].upper && rt->side[1].knee == rt->side[1].upper;
  if (q->pelvis_frames > 0 && !stiff)
    check(jg, RK_QUALITY_HIP_BOB_CHANGED, q->pelvis_max_mm);
  check(jg, RK_QUALITY_ALL_FRAMES_PLANTED,
        100.0 * fmax(foot_travel(r, 0), foot_travel(r, 1)) / jg->height);
}

static gint by_code(gconstpointer a, gconstpointer b) {
  return rk_quality_code_parse(((const rk_retarget_warning *)a)->code) -
         rk_quality_code_parse(((const rk_retarget_warning *)b)->code);
}

GArray *rk_retarget_judge(const rk_retargeter *rt, const rk_retarget_result *r,
                          const rk_retarget_judge_input *in, rk_retarget_verdict *verdict) {
  rk_quality_bounds defaults;
  rk_quality_bounds_init(&defaults);
  const rk_retarget_judge_input none = {0};
  if (!in)
    in = &none;
  judge jg = {g_array_new(FALSE, FALSE, sizeof(rk_retarget_warning)),
              in->bounds ? in->bounds : &defaults, rt->tmap.height > 0 ? rt->tmap.height : HUMAN_M};
  g_array_set_clear_func(jg.out, warning_clear);
  const rk_retarget_look *look = in->look;
  if (look) {
    check(&jg, RK_QUALITY_MESH_THROUGH_FLOOR, -look->planted_low_min_mm);
    check(&jg, RK_QUALITY_FEET_FLOAT, look->planted_low_median_mm);
    check(&jg, RK_QUALITY_BODY_THROUGH_FLOOR, look->penetration_mm);
    check(&jg, RK_QUALITY_FOOT_PITCH, look->foot_pitch_p95_deg);
    check(&jg, RK_QUALITY_SKATE, look->skate_max_mm);
    check(&jg, RK_QUALITY_LEGS_INTERSECT, look->legs_overlap_mm);
  }
  check(&jg, RK_QUALITY_GOAL_MISSED, r->quality.ik_goal_error_max_mm);
  /* Foot IK moves the legs (and the floor the body) on purpose: then the body above them. */
  if (in->pose)
    check(&jg, RK_QUALITY_POSE_ERROR, r->foot_ik ? in->pose->body_max_mm : in->pose->max_mm);
  check_result(&jg, rt, r);
  check_scale(&jg, rt);
  check_repairs(&jg, in->source);
  g_array_sort(jg.out, by_code);
  rk_retarget_verdict v = RK_RETARGET_CLEAN;
  for (guint i = 0; i < jg.out->len; i++)
    v = MAX(v, g_array_index(jg.out, rk_retarget_warning, i).severity);
  *verdict = v;
  return jg.out;
}
