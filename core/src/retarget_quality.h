/* Internal: the measures of retarget_quality.c that play a clip of the target (the written output
 * read back), as measures of a pass over its frames (measure_pass.h): limb directions against the
 * source and the contact joints' positions. rk_retarget_limb_direction and
 * rk_retarget_contact_positions run them alone; rk_retarget_measure_output with the others. */
#ifndef RK_RETARGET_QUALITY_H
#define RK_RETARGET_QUALITY_H

#include "measure_pass.h"
#include "retarget_run.h"

/* The clips a pass over r's frames plays: `clip` of `skeleton` and the source clip. */
rk__measure_clips rk__rt_measure_clips(const rk_retargeter *rt, const rk_retarget_result *r,
                                       const rk_clip *source_clip, const rk_skeleton *skeleton,
                                       const rk_clip *clip);

/* Limb directions of a clip of the target against the source's. */
typedef struct rk__limb_measure {
  const rk_retargeter *rt;
  int sj[16], oj[16];                /* per limb: its two joints in the source and the output */
  size_t nl;
  double *angles;                    /* per frame nl slots; each part's angles from its first */
  size_t first[RK__MEASURE_PARTS];   /* each part's first frame (SIZE_MAX: none yet) */
  size_t count[RK__MEASURE_PARTS];   /* angles each part measured */
  rk__measure m;
} rk__limb_measure;

/* Prepares lm for a pass over r's frames of a clip of `skeleton`; false (nothing allocated, the
 * figure NAN) when no limb is mapped in both rigs and present in the skeleton. */
bool rk__limb_measure_init(rk__limb_measure *lm, const rk_retargeter *rt,
                           const rk_retarget_result *r, const rk_skeleton *skeleton);
/* The median angle (degrees; NAN when no frame had two limbs of length) after the pass; frees
 * lm's buffers. */
double rk__limb_measure_finish(rk__limb_measure *lm);

/* The contact joints' world positions per frame. */
typedef struct rk__contact_measure {
  int joints[RK__RT_MAX_FEET]; /* in the measured skeleton (-1: it lacks the joint) */
  size_t nc;
  rk_vec3 *positions;          /* frames x nc, frame-major (the caller takes it) */
  rk__measure m;
} rk__contact_measure;

/* Prepares cm for a pass over r's frames of a clip of `skeleton` (positions zeroed). */
void rk__contact_measure_init(rk__contact_measure *cm, const rk_retargeter *rt,
                              const rk_retarget_result *r, const rk_skeleton *skeleton);

#endif
