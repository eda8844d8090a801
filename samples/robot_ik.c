/* robot_ik: a robot arm from a DH table, as a kinematic tree, solved for a pose goal.
 *
 *   robot_ik TABLE.dh X Y Z
 *
 * Loads a DH table (rigkit's text format, see importers/README.md), builds the kinematic tree
 * with the joints the table declares, and moves the tool's origin to (X, Y, Z) metres in the
 * canonical Y-up world with the damped least-squares solver, inside the joint limits. */
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: robot_ik TABLE.dh X Y Z\n");
    return 2;
  }
  GError *error = NULL;
  g_autoptr(rk_asset) robot = rk_import_file(argv[1], NULL, &error);
  if (!robot) {
    fprintf(stderr, "robot_ik: %s\n", error->message);
    g_error_free(error);
    return 1;
  }
  const rk_skeleton *s = rk_asset_skeleton(robot);
  const size_t n = rk_skeleton_joint_count(s);

  /* Joint types, axes and limits as the table declares them; the base is fixed to the world. */
  g_autofree rk_joint_spec *specs = g_new0(rk_joint_spec, n);
  size_t count = 0;
  for (size_t j = 0; j < n; j++) {
    rk_joint_mechanics m;
    if (!rk_asset_joint_mechanics(robot, j, &m))
      continue;
    rk_joint_spec *sp = &specs[count++];
    sp->name = rk_skeleton_joint_name(s, j);
    sp->type = m.motion == RK_JOINT_PRISMATIC ? RK_JOINT_PRISMATIC : RK_JOINT_REVOLUTE;
    sp->axis = m.motion == RK_JOINT_PRISMATIC ? rk_quat_rotate(rk_skeleton_rest(s, j)->r, m.axis) : m.axis;
    sp->order = RK_EULER_N_ORDERS;
    sp->has_limits = m.has_limits;
    sp->lower[0] = m.lower;
    sp->upper[0] = m.upper;
  }
  rk_tree_options topts = RK_TREE_OPTIONS_INIT;
  topts.root_type = RK_JOINT_FIXED;
  topts.default_type = RK_JOINT_FIXED;
  topts.joints = specs;
  topts.joint_count = count;
  g_autoptr(rk_tree) tree = rk_tree_from_skeleton(s, NULL, &topts, &error);
  if (!tree) {
    fprintf(stderr, "robot_ik: %s\n", error->message);
    g_error_free(error);
    return 1;
  }

  rk_ik_goal goal = RK_IK_GOAL_INIT;
  goal.kind = RK_IK_POSITION;
  goal.link = rk_skeleton_find_joint(s, "tool");
  goal.target_position = rk_vec3_make(atof(argv[2]), atof(argv[3]), atof(argv[4]));
  rk_ik_problem problem = RK_IK_PROBLEM_INIT;
  problem.tree = tree;
  problem.goals = &goal;
  problem.goal_count = 1;
  rk_ik_options opts = RK_IK_OPTIONS_INIT;
  opts.max_restarts = 20;
  g_autoptr(rk_ik_ws) ws = rk_ik_ws_new(&problem, 0, &error);
  g_autofree double *q = g_new0(double, rk_tree_dof_count(tree));
  rk_ik_result result;
  if (!ws || !rk_ik_solve(&problem, &opts, q, ws, &result, &error)) {
    fprintf(stderr, "robot_ik: %s\n", error->message);
    g_error_free(error);
    return 1;
  }
  printf("%s after %d iterations, position error %.3g m\n", rk_ik_status_name(result.status),
         result.iterations, result.position_error);
  for (size_t k = 0; k < rk_tree_dof_count(tree); k++)
    printf("  %-16s %10.5f\n", rk_tree_dof_name(tree, k), q[k]);
  return result.reached ? 0 : 1;
}
