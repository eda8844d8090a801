/* Several measures of an output read back in one pass over its frames (see measure_pass.h). */
#include "measure_pass.h"

#include "clip_player.h"
#include <rigkit/halves.h>

#include <math.h>
#include <string.h>

int rk__measure_split(size_t frames, int parts, size_t first[RK__MEASURE_PARTS + 1]) {
  if (frames < 256 || parts < 1)
    parts = 1;
  if (parts > RK__MEASURE_PARTS)
    parts = RK__MEASURE_PARTS;
  for (int p = 0; p <= parts; p++)
    first[p] = frames * (size_t)p / (size_t)parts;
  return parts;
}

/* One part of a pass: its frames and the measures. */
typedef struct part {
  const rk__measure_clips *c;
  rk__measure *const *m;
  size_t n;
  int index;
  size_t f0, f1;
} part;

/* The joints the measures read of one side (out: the output, else the source) into read (as
 * many as the skeleton has joints, at least): their count, or -1 when every joint is read. */
static long union_read(rk__measure *const *m, size_t n, bool out, int *read, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (out && m[i]->out_all)
      return -1;
    const int *r = out ? m[i]->out_read : m[i]->src_read;
    const size_t nr = out ? m[i]->n_out : m[i]->n_src;
    for (size_t q = 0; q < nr; q++)
      if (r[q] >= 0 && (size_t)r[q] < cap)
        read[k++] = r[q];
  }
  return (long)k;
}

static gpointer run_part(gpointer data) {
  const part *pt = data;
  const rk__measure_clips *c = pt->c;
  const size_t no = rk_skeleton_joint_count(c->out_skel), ns = rk_skeleton_joint_count(c->src_skel);
  size_t total = 0;
  for (size_t i = 0; i < pt->n; i++)
    total += pt->m[i]->n_out + pt->m[i]->n_src;
  g_autofree int *read = g_new(int, total + 1);
  rk__clip_player op, sp;
  const long nout = union_read(pt->m, pt->n, true, read, no);
  rk__clip_player_init(&op, c->out_skel, c->out_clip, nout < 0 ? NULL : read,
                       nout < 0 ? 0 : (size_t)nout);
  const long nsrc = union_read(pt->m, pt->n, false, read, ns);
  memset(&sp, 0, sizeof sp);
  if (nsrc > 0)
    rk__clip_player_init(&sp, c->src_skel, c->src_clip, read, (size_t)nsrc);
  const double dur = rk_clip_duration(c->src_clip);
  for (size_t f = pt->f0; f < pt->f1; f++) {
    rk__clip_player_at(&op, (double)f / c->fps); /* as rk_clip_sample_frame */
    if (nsrc > 0)
      rk__clip_player_at(&sp, fmin((double)f / c->fps, dur));
    for (size_t i = 0; i < pt->n; i++)
      pt->m[i]->frame(pt->m[i]->ctx, pt->index, f, op.models, sp.models);
  }
  rk__clip_player_clear(&op);
  rk__clip_player_clear(&sp);
  return NULL;
}

void rk__measure_run(const rk__measure_clips *c, rk__measure *const *m, size_t n, int parts) {
  G_STATIC_ASSERT(RK__MEASURE_PARTS == 2);
  size_t first[RK__MEASURE_PARTS + 1];
  parts = rk__measure_split(c->frames, parts, first);
  part pt[RK__MEASURE_PARTS];
  for (int p = 0; p < parts; p++)
    pt[p] = (part){c, m, n, p, first[p], first[p + 1]};
  if (parts == 2)
    rk_halves_run(run_part, &pt[0], &pt[1], true);
  else
    run_part(&pt[0]);
}
