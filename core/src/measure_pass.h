/* Internal: one pass over the frames of a clip of the target (an output read back) and the
 * source clip for several measures at once. Each frame samples the output and the source once
 * (rk__clip_player over the joints any measure reads) and hands both sets of model matrices to
 * every measure, instead of each measure playing both clips itself. The frames go in consecutive
 * parts, each on a thread of its own; a measure keeps what it sums per part and merges the parts
 * in order, so the figures are those of one pass in frame order. */
#ifndef RK_MEASURE_PASS_H
#define RK_MEASURE_PASS_H

#include <rigkit/clip.h>
#include <rigkit/skeleton.h>

#include <stdbool.h>

/* The most parts a pass splits its frames into. */
#define RK__MEASURE_PARTS 2

/* One measure in a pass: what it reads and what it does at each frame. */
typedef struct rk__measure {
  bool out_all;       /* reads every joint of the output (else out_read[n_out]) */
  const int *out_read;
  size_t n_out;
  const int *src_read; /* the source's joints it reads (n_src 0: none) */
  size_t n_src;
  /* Frame f of part `part`: the output's and the source's model matrices (per joint of each
   * skeleton, valid for the joints read). Parts run at the same time: write only per frame or
   * per part. */
  void (*frame)(void *ctx, int part, size_t f, const rk_mat4 *out_models,
                const rk_mat4 *src_models);
  void *ctx;
} rk__measure;

/* The clips a pass plays: frame f samples the output at f / fps and the source at
 * min(f / fps, the source's duration). */
typedef struct rk__measure_clips {
  const rk_skeleton *out_skel;
  const rk_clip *out_clip;
  const rk_skeleton *src_skel;
  const rk_clip *src_clip;
  double fps;
  size_t frames;
} rk__measure_clips;

/* Where part p of `parts` (1..RK__MEASURE_PARTS) of a pass over `frames` frames starts: first[p],
 * first[parts] == frames. A short clip (under 256 frames) is one part whatever is asked.
 * Returns the part count. */
int rk__measure_split(size_t frames, int parts, size_t first[RK__MEASURE_PARTS + 1]);
/* Runs every frame through measures m[n] in the parts rk__measure_split gives (part 0 on the
 * caller's thread, part 1 beside it as rk_halves_run gives it: the kept worker, a thread of its
 * own, or the caller's after part 0 on one processor);
 * returns when every part is done. Allocates only the players and threads. */
void rk__measure_run(const rk__measure_clips *c, rk__measure *const *m, size_t n, int parts);

#endif
