/* Internal: rk_retarget_measure_output with the number of parts its pass splits the frames into
 * (retarget_output.c), so that tests can hold one part against two. */
#ifndef RK_RETARGET_OUTPUT_H
#define RK_RETARGET_OUTPUT_H

#include <rigkit/retarget.h>

/* rk_retarget_measure_output over `parts` parts (1..RK__MEASURE_PARTS). */
void rk__rt_measure_output(const rk_retargeter *rt, const rk_retarget_result *r,
                           const rk_clip *source_clip, const rk_asset *output, double *foot_low,
                           rk_vec3 *soles, int parts, rk_retarget_output_figures *out);

#endif
