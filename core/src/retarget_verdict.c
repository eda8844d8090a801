/* Retargeting, the verdict: one table of bounds on every figure of a retargeted clip (what a person
 * sees in the output, the IK's own, the contacts, the rigs), each exceeded bound a warning with a
 * code and a message, the verdict the worst of them. Lengths are at human scale (a 1.75 m rig)
 * and scale with the character. */
#include "retarget_run.h"

#include <rigkit/fk.h>

/* A bound on one figure: above `check` look at it, above `failed` it is wrong. */
typedef struct bound {
  const char *code;
  double check, failed;
  bool scaled; /* millimetres at human scale: scaled by the character's height / 1.75 m */
  const char *what; /* the message, printf'd with the figure and the bound crossed */
} bound;

enum {
  B_THROUGH,    /* planted feet through the floor: -planted_low_min_mm */
  B_FLOAT,      /* planted feet above it: planted_low_median_mm */
  B_BODY,       /* the body through the floor: penetration_mm */
  B_PITCH,      /* foot pitch against the source: foot_pitch_p95_deg */
  B_SKATE,      /* planted points sliding: skate_max_mm */
  B_GOAL,       /* pins missed: ik_goal_error_max_mm */
  B_POSE,       /* identity-style pose error: max_mm */
  B_COUNT
};

/* The table (the numbers: planted feet within -5..+10 mm and never more than 10 mm
 * through, pitch within 20 degrees at p95, skate <= 5 mm, pins within 1 mm). */
static const bound bounds[B_COUNT] = {
    [B_THROUGH] = {"mesh-through-floor", 5, 10, true,
                   "a planted foot's mesh goes %.1f mm through the floor (bound %.0f mm)"},
    [B_FLOAT] = {"feet-float", 10, 25, true,
                 "planted feet float %.1f mm above the floor (median; bound %.0f mm)"},
    [B_BODY] = {"body-through-floor", 10, 30, true,
                "the body goes %.1f mm through the floor (bound %.0f mm)"},
    [B_PITCH] = {"foot-pitch", 20, 45, false,
                 "the feet pitch %.1f deg away from the source's (95th percentile; bound %.0f deg)"},
    [B_SKATE] = {"skate", 5, 20, true,
                 "planted sole points slide %.1f mm (bound %.0f mm)"},
    [B_GOAL] = {"goal-missed", 1, 10, true,
                "planted sole points miss their pins by up to %.2f mm (bound %.0f mm)"},
    [B_POSE] = {"pose-error", 10, 50, true,
                "the joints stand up to %.2f mm from the source's on rigs that correspond "
                "(bound %.0f mm)"},
};

const char *rk_retarget_verdict_name(rk_retarget_verdict verdict) {
  static const char *const names[] = {"clean", "check", "failed"};
  return (unsigned)verdict < G_N_ELEMENTS(names) ? names[verdict] : "?";
}

static void warning_clear(gpointer p) {
  g_free(((rk_retarget_warning *)p)->message);
}

static void add(GArray *out, const char *code, rk_retarget_verdict severity, char *message) {
  rk_retarget_warning w = {code, severity, message};
  g_array_append_val(out, w);
}

/* Checks figure v against bound b (scale: the character's height / 1.75 m). */
static void check(GArray *out, int b, double v, double scale) {
  const bound *bd = &bounds[b];
  const double k = bd->scaled ? scale : 1.0;
  if (!isfinite(v) || v <= bd->check * k)
    return;
  const bool failed = v > bd->failed * k;
  add(out, bd->code, failed ? RK_RETARGET_FAILED : RK_RETARGET_CHECK,
      g_strdup_printf(bd->what, v, (failed ? bd->failed : bd->check) * k));
}

/* How far (metres, horizontally) a foot planted at 98% of the frames or more of a clip longer
 * than two seconds travels from its first contact to its last; 0 for any other foot. A foot
 * planted throughout stays where it is (a stance, a seat): one that travels so was held where it
 * slid. */
static double foot_travel(const rk_retarget_result *r, int side) {
  size_t planted = 0;
  int first = -1, last = -1;
  for (size_t f = 0; f < r->frames; f++)
    for (int p = 0; p < RK__RT_POINTS; p++)
      if (rk__rt_in_intervals(r->points[side][p], (int)f)) {
        planted++;
        first = first < 0 ? (int)f : first;
        last = (int)f;
        break;
      }
  if (r->frames <= (size_t)(2.0 * r->fps) || planted < 0.98 * (double)r->frames)
    return 0.0;
  const rk_vec3 a = r->sole_ik[(size_t)first * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS];
  const rk_vec3 b = r->sole_ik[(size_t)last * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS];
  return rk_vec3_norm(rk__rt_horizontal(rk_vec3_sub(b, a)));
}

/* Findings from the result itself: legs out of reach, a moved pelvis, a clip planted throughout,
 * an unlikely scale between the rigs. */
static void check_result(GArray *out, const rk_retargeter *rt, const rk_retarget_result *r) {
  const rk_retarget_quality *q = &r->quality;
  if (q->unreachable_frames > 0)
    add(out, "leg-cannot-reach", RK_RETARGET_CHECK,
        g_strdup_printf("a planted leg cannot reach its pin at %zu frames, even with the pelvis "
                        "moved",
                        q->unreachable_frames));
  if (q->pelvis_frames > 0 && q->pelvis_max_mm > 10.0 * rt->tmap.height / 1.75)
    add(out, "hip-bob-changed", RK_RETARGET_CHECK,
        g_strdup_printf("the pelvis moved by up to %.1f mm at %zu frames so that planted legs "
                        "reach their pins: the hip bob is not the source's there",
                        q->pelvis_max_mm, q->pelvis_frames));
  for (int side = 0; side < 2; side++) {
    const double travel = foot_travel(r, side);
    if (travel > 0.25 * rt->tmap.height) {
      add(out, "all-frames-planted", RK_RETARGET_CHECK,
          g_strdup_printf("the %s foot is planted at nearly every frame yet travels %.2f m: is "
                          "it sliding, or are the contact thresholds too loose?",
                          side ? "right" : "left", travel));
      break;
    }
  }
  if (rt->scale < 0.25 || rt->scale > 4.0)
    add(out, "implausible-scale", RK_RETARGET_CHECK,
        g_strdup_printf("the target's legs are %.2f times the source's: are the units right?",
                        rt->scale));
}

GArray *rk_retarget_judge(const rk_retargeter *rt, const rk_retarget_result *r,
                          const rk_retarget_look *look, const rk_retarget_pose_error *pose,
                          rk_retarget_verdict *verdict) {
  GArray *out = g_array_new(FALSE, FALSE, sizeof(rk_retarget_warning));
  g_array_set_clear_func(out, warning_clear);
  const double scale = rt->tmap.height / 1.75;
  if (look) {
    check(out, B_THROUGH, -look->planted_low_min_mm, scale);
    check(out, B_FLOAT, look->planted_low_median_mm, scale);
    check(out, B_BODY, look->penetration_mm, scale);
    check(out, B_PITCH, look->foot_pitch_p95_deg, scale);
    check(out, B_SKATE, look->skate_max_mm, scale);
  }
  check(out, B_GOAL, r->quality.ik_goal_error_max_mm, scale);
  /* Foot IK moves the legs (and the floor the body) on purpose: then the body above them. */
  if (pose)
    check(out, B_POSE, r->foot_ik ? pose->body_max_mm : pose->max_mm, scale);
  check_result(out, rt, r);
  rk_retarget_verdict v = RK_RETARGET_CLEAN;
  for (guint i = 0; i < out->len; i++)
    v = MAX(v, g_array_index(out, rk_retarget_warning, i).severity);
  *verdict = v;
  return out;
}
