/* Internal: a clip of a skeleton played forward frame by frame for the joints a caller reads.
 * Each frame samples only those joints and their ancestors (rk_clip_sample_joints with a key
 * cursor: one or two steps a track instead of a search) and runs FK over them alone; their model
 * matrices are the bits rk_clip_sample and rk_fk_models give. The measures of an output read back
 * walk the output and the source clip this way, once per frame in frame order. */
#ifndef RK_CLIP_PLAYER_H
#define RK_CLIP_PLAYER_H

#include <rigkit/clip.h>
#include <rigkit/skeleton.h>

typedef struct rk__clip_player {
  const rk_skeleton *skel;
  const rk_clip *clip;
  int *joints;           /* the joints read and their ancestors, ascending (parents first) */
  size_t n;
  rk_clip_cursor cursor; /* over the clip's tracks */
  rk_transform *locals;  /* per joint of skel: the rest pose where nothing is sampled */
  rk_mat4 *models;       /* per joint of skel: valid for the joints in `joints` */
} rk__clip_player;

/* Prepares p to play clip (of skeleton s: as many joints) for the joints read[n_read] (every
 * joint when read is NULL; out-of-range entries and -1 are ignored). Allocates its buffers. */
void rk__clip_player_init(rk__clip_player *p, const rk_skeleton *s, const rk_clip *clip,
                          const int *read, size_t n_read);
/* Samples the clip at time t (clamped to the clip) and places the joints read: p->models. False
 * (nothing changed) when the clip does not have the skeleton's joint count. Allocates nothing. */
bool rk__clip_player_at(rk__clip_player *p, double t);
/* Frees p's buffers (the skeleton and clip stay the caller's). */
void rk__clip_player_clear(rk__clip_player *p);

#endif
