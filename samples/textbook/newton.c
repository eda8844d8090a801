/* newton: the textbook Newton iteration on a DH table's tool position, printed step by step.
 *
 *   sample_textbook_newton TABLE.dh X Y [Z]
 *
 * Loads a table of revolute joints (rigkit's DH format, importers/README.md), takes the chain from
 * its base to its tool with the table's first frame as the start (q = 0 without frames), and
 * moves the tool's origin to the goal, given in the table's frame 0, by full Newton steps
 * dq = J^+ e (rk_ik_newton_step): J holds the position rows of the chain's geometric Jacobian,
 * x and y for a goal of two numbers (a planar arm), x, y and z for three. Prints q in degrees,
 * the tool's position and the error's length at every iterate, until the error is below 1e-12
 * (exit 0) or after 20 steps or at a singular Jacobian (exit 1). */
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_JOINTS = 16, MAX_STEPS = 20 };

/* The table's tree: the base fixed, every joint revolute about its local z (the DH axis). */
static rk_tree *table_tree(const rk_asset *table, GError **error) {
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_FIXED;
  o.default_type = RK_JOINT_REVOLUTE;
  o.default_axis = rk_vec3_make(0, 0, 1);
  return rk_tree_from_skeleton(rk_asset_skeleton(table), NULL, &o, error);
}

/* The chain variables at the table's first frame. */
static void start_configuration(const rk_asset *table, const rk_tree *tree, const rk_chain *chain,
                                double *q) {
  const rk_skeleton *s = rk_asset_skeleton(table);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree double *q_tree = g_new0(double, rk_tree_dof_count(tree) + 1);
  if (rk_asset_clip_count(table) > 0) {
    const rk_clip *c = rk_asset_clip(table, 0);
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), rk_clip_fps(c), 0, locals, n);
    rk_tree_q_from_locals(tree, locals, NULL, q_tree, NULL);
  }
  rk_chain_gather(chain, q_tree, q);
}

static int fail(GError *error) {
  fprintf(stderr, "newton: %s\n", error->message);
  g_error_free(error);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: sample_textbook_newton TABLE.dh X Y [Z]\n");
    return 2;
  }
  GError *error = NULL;
  g_autoptr(rk_asset) table = rk_import_file(argv[1], NULL, &error);
  if (!table)
    return fail(error);
  g_autoptr(rk_tree) tree = table_tree(table, &error);
  if (!tree)
    return fail(error);
  const int base = rk_tree_find_link(tree, "base"), tool = rk_tree_find_link(tree, "tool");
  g_autoptr(rk_chain) chain = rk_chain_new(tree, base, tool, &error);
  if (!chain)
    return fail(error);
  const rk_dh_chain *dh = rk_chain_dh(chain, RK_DH_STANDARD);
  const size_t n = dh->count, m = (size_t)argc - 2;
  if (n == 0 || n > MAX_JOINTS) {
    fprintf(stderr, "newton: %s: %zu joints (1 to %d)\n", argv[1], n, MAX_JOINTS);
    return 1;
  }
  const double goal[3] = {atof(argv[2]), atof(argv[3]), m == 3 ? atof(argv[4]) : 0.0};
  double q[MAX_JOINTS], J[6 * MAX_JOINTS], Jp[3 * MAX_JOINTS], e[3], dq[MAX_JOINTS];
  rk_mat4 frames[MAX_JOINTS + 1], end;
  g_autofree double *work = g_new(double, rk_ik_newton_step_work(m, n));
  start_configuration(table, tree, chain, q);
  printf("newton: %s, goal (", argv[1]);
  for (size_t r = 0; r < m; r++)
    printf("%s%g", r ? ", " : "", goal[r]);
  printf(")\n");
  for (int step = 0;; step++) {
    rk_dh_chain_jacobian(dh, q, J, 6, &end, frames);
    const rk_vec3 p = rk_mat4_get_translation(&end);
    const double at[3] = {p.x, p.y, p.z};
    double norm2 = 0;
    for (size_t r = 0; r < m; r++) {
      e[r] = goal[r] - at[r];
      norm2 += e[r] * e[r];
    }
    printf("  iteration %d: q = (", step);
    for (size_t k = 0; k < n; k++)
      printf("%s%.6f", k ? ", " : "", q[k] / RK_DEG);
    printf(") deg, tool (%.6f, %.6f, %.6f), error %.3g\n", p.x, p.y, p.z, sqrt(norm2));
    if (sqrt(norm2) < 1e-12) {
      printf("converged after %d Newton steps\n", step);
      return 0;
    }
    if (step == MAX_STEPS)
      break;
    for (size_t k = 0; k < n; k++)
      for (size_t r = 0; r < m; r++)
        Jp[k * m + r] = J[k * 6 + r];
    if (rk_ik_newton_step(m, n, Jp, m, e, 0.0, dq, work) == RK_IK_STEP_SINGULAR) {
      printf("singular Jacobian: no Newton step\n");
      return 1;
    }
    for (size_t k = 0; k < n; k++)
      q[k] += dq[k];
  }
  printf("no convergence after %d Newton steps\n", MAX_STEPS);
  return 1;
}
