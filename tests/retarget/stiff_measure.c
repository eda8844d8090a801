/* rk_stiff_measure: the figures of stiff_figures.h for a written output of `rigkit retarget` onto
 * a character with legs of one bone (this build's or another's), one line of JSON, for the
 * before/after table of the README's paragraph on such legs.
 *
 *   rk_stiff_measure TARGET SOURCE UNIT OUTPUT
 *
 * UNIT is the source's metres per unit or "cmu". With STIFF_DUMP=FILE in the environment, one
 * line per frame goes to FILE: which feet are planted, the legs' ends' moves and the source
 * feet's (cm), the hips' and the source's, the hips' height, the feet's meshes above the floor
 * (mm), the legs' blocks' gap and the left end's x and z less the right one's (cm). Exit 1
 * with a message when a file cannot be read. */
#include "stiff_figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: rk_stiff_measure TARGET SOURCE UNIT OUTPUT\n");
    return 2;
  }
  const double unit = !strcmp(argv[3], "cmu") ? 0.0254 / 0.45 : atof(argv[3]);
  g_autoptr(GError) e = NULL;
  stiff_figures f;
  if (!stiff_measure(argv[1], argv[2], unit, argv[4], &f, &e)) {
    fprintf(stderr, "rk_stiff_measure: %s\n", e ? e->message : "cannot measure");
    return 1;
  }
  printf("{\"frames\": %zu, \"end_move_cm\": [%.1f, %.1f], \"src_move_cm\": [%.1f, %.1f], "
         "\"end_excess_cm\": [%.1f, %.1f], \"pelvis_move_cm\": %.1f, \"src_pelvis_move_cm\": %.1f, "
         "\"pelvis_excess_cm\": %.1f, \"jumps_5cm\": %zu, \"low_planted_mm\": %.1f, "
         "\"low_swing_mm\": %.1f, \"splay_deg\": %.1f, \"under_excess_cm\": %.1f, \"arrive_move_cm\": %.1f, "
         "\"arrivals\": %zu, \"leg_gap_cm\": %.1f, \"half_width_cm\": [%.1f, %.1f]}\n",
         f.frames, 100 * f.end_move[0], 100 * f.end_move[1], 100 * f.src_move[0],
         100 * f.src_move[1], 100 * f.end_excess[0], 100 * f.end_excess[1], 100 * f.pelvis_move,
         100 * f.src_pelvis_move, 100 * f.pelvis_excess, f.jumps, f.low_planted_mm,
         f.low_swing_mm, f.splay_deg, 100 * f.under_excess, 100 * f.arrive_move, f.arrivals, 100 * f.leg_gap,
         100 * f.half_width[0], 100 * f.half_width[1]);
  return 0;
}
