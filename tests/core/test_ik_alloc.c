/* The IK solvers allocate nothing per solve: malloc, calloc and realloc are counted (on this thread
 * only, between two points) while a tree problem with loops and a posture, a DH chain problem and
 * the analytic limb solver run many times. Not under the sanitizers, which own the allocator. */
#include "rk_test.h"

#include <dlfcn.h>
#include <rigkit/ik.h>

#if defined(__SANITIZE_ADDRESS__)
#define RK_NO_ALLOC_COUNT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RK_NO_ALLOC_COUNT 1
#endif
#endif

#ifndef RK_NO_ALLOC_COUNT
static _Thread_local int armed;
static _Thread_local long count;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
/* dlsym may itself call calloc before real_calloc is known: serve it from a static buffer. */
static char boot[8192];
static size_t boot_used;
static int resolving;

void *malloc(size_t n) {
  if (!real_malloc)
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
  count += armed;
  return real_malloc(n);
}

void *calloc(size_t a, size_t b) {
  if (!real_calloc) {
    if (resolving) {
      void *p = boot + boot_used;
      boot_used += (a * b + 15) & ~(size_t)15;
      return boot_used <= sizeof boot ? p : NULL;
    }
    resolving = 1;
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    resolving = 0;
  }
  count += armed;
  return real_calloc(a, b);
}

void *realloc(void *p, size_t n) {
  if (!real_realloc)
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
  count += armed;
  return real_realloc(p, n);
}

void free(void *p) {
  static void (*real_free)(void *);
  if ((char *)p >= boot && (char *)p < boot + sizeof boot)
    return;
  if (!real_free)
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
  real_free(p);
}

static int add(rk_skeleton_builder *b, const char *name, int parent, double x, double y, double z) {
  rk_transform t = rk_transform_identity();
  t.t = rk_vec3_make(x, y, z);
  return rk_skeleton_builder_add_joint(b, name, parent, &t, 0);
}

Test(ik_alloc, solves_allocate_nothing) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int h = add(b, "Hips", -1, 0, 1, 0);
  int ul = add(b, "UpLeg_L", h, 0.1, 0, 0), ll = add(b, "LoLeg_L", ul, 0, -0.45, 0.02);
  int fl = add(b, "Foot_L", ll, 0, -0.42, 0);
  int ur = add(b, "UpLeg_R", h, -0.1, 0, 0), lr = add(b, "LoLeg_R", ur, 0, -0.45, 0.02);
  int fr = add(b, "Foot_R", lr, 0, -0.42, 0);
  int sp = add(b, "Spine", h, 0, 0.3, 0), ua = add(b, "UpArm_L", sp, 0.2, 0.2, 0);
  int la = add(b, "LoArm_L", ua, 0.3, 0, 0);
  int hl = add(b, "Hand_L", la, 0.25, 0, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  rk_skeleton_builder_free(b);
  cr_assert(s);
  rk_tree *t = rk_tree_from_skeleton(s, NULL, NULL, NULL);
  cr_assert(t);
  /* Builder indices equal skeleton indices here (parents were added first). */
  double q[64] = {0}, post[64] = {0};
  rk_loop loops[2] = {rk_loop_closing(t, RK_LOOP_RIGID, q, fl, rk_vec3_make(0, 0, 0), -1),
                      rk_loop_closing(t, RK_LOOP_RIGID, q, fr, rk_vec3_make(0, 0, 0), -1)};
  rk_ik_goal g = RK_IK_GOAL_INIT;
  g.kind = RK_IK_POSITION;
  g.link = hl;
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.tree = t;
  p.goals = &g;
  p.goal_count = 1;
  p.loops = loops;
  p.loop_count = 2;
  p.posture = post;
  rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_restarts = 3;
  const rk_dh_row rows[2] = {{1, 0, 0, 0, RK_DH_REVOLUTE}, {1, 0, 0, 0, RK_DH_REVOLUTE}};
  const rk_dh_chain c = {RK_DH_STANDARD, rows, 2, rk_mat4_identity(), rk_mat4_identity()};
  rk_ik_goal gc = g;
  gc.link = 1;
  gc.target_position = rk_vec3_make(0.8, 1.1, 0);
  rk_ik_problem pc = RK_IK_PROBLEM_INIT;
  pc.chain = &c;
  pc.goals = &gc;
  pc.goal_count = 1;
  rk_ik_ws *wc = rk_ik_ws_new(&pc, 0, NULL);
  rk_ik_limb limb;
  cr_assert(rk_ik_limb_init(t, ul, ll, fl, &limb, NULL));
  rk_mat4 models[16];
  rk_ik_result r;
  int reached = 0;
  double pe;

  count = 0;
  armed = 1;
  for (int i = 0; i < 100; i++) {
    g.target_position = rk_vec3_make(0.3 + 0.001 * i, 1.5 - 0.002 * i, 0.2);
    rk_ik_solve(&p, &o, q, ws, &r, NULL);
    reached += r.reached;
    double qc[2] = {0.1, 0.2};
    rk_ik_solve(&pc, &o, qc, wc, &r, NULL);
    reached += r.reached;
    rk_ik_goal_errors(&p, q, ws, &pe, NULL, NULL, NULL);
    rk_tree_fk(t, q, NULL, models);
    rk_ik_limb_solve(t, &limb, rk_vec3_make(0.1, 0.3, 0.1), rk_vec3_make(0, 0, 1), models, q);
  }
  armed = 0;
  cr_assert_eq(count, 0, "%ld allocations during the solves", count);
  cr_assert_eq(reached, 200);
  rk_ik_ws_free(ws);
  rk_ik_ws_free(wc);
  rk_tree_unref(t);
}
#else
Test(ik_alloc, skipped_under_sanitizers) {
  cr_skip_test("allocation counting needs the plain allocator");
}
#endif
