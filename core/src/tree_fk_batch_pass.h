/* Internal template of tree_fk_batch.c: the pass over a tree for one group of BW lanes of a block,
 * in vectors of BW doubles, its names suffixed with BW. tree_fk_batch.c defines BW and includes it
 * once per width: 8 lanes (AVX-512), 4 (AVX2), 2 (SSE2), so that each variant computes in its own
 * registers; BW is undefined at the end. Every joint is composed
 * in the form rk_tree_fk's pass takes for it at that CPU level, its operations in its order
 * (tree_fk.c's compose_joint and compose_ball row by row), so each lane gets rk_tree_fk's bits
 * (but for the FMA contraction of ball turns, see rigkit/tree_fk_batch.h). */

#define BFN(name) BFN_(name, BW)
#define BFN_(name, w) BFN__(name, w)
#define BFN__(name, w) name##w
#define BVD BFN(vd)
#define BVU BFN(vu)
#define BVI BFN(vi)
typedef double BVD __attribute__((vector_size(8 * BW)));
typedef unsigned long long BVU __attribute__((vector_size(8 * BW)));
typedef long long BVI __attribute__((vector_size(8 * BW)));

/* A group of BW lanes of a block while it is computed: the block, its first lane, and the sines
 * and cosines of DOFs [lo, hi) in each lane (DOF d's at (d - lo) * BW). */
typedef struct BFN(group) {
  const block *b;
  int g;
  size_t lo, hi;
  double sn[CHUNK * BW] __attribute__((aligned(64)));
  double cs[CHUNK * BW] __attribute__((aligned(64)));
} BFN(group);

#define GLD(v, f, e) memcpy(&(v), (f) + (e) * L + gr->g, sizeof(BVD))
#define GST(f, e, v) memcpy((f) + (e) * L + gr->g, &(v), sizeof(BVD))

/* DOF d of every lane of the group. */
INL void BFN(gather)(const BFN(group) *gr, size_t d, BVD *x) {
  for (int l = 0; l < BW; l++)
    (*x)[l] = gr->b->q[gr->g + l][d];
}

/* The sines and cosines of DOFs [first, first + count) ready in gr: when they are not, those of
 * the next CHUNK DOFs from first, one vector of the lanes' angles per DOF through rk_tree_fk's
 * kernel, and rk_sincos (which gives the same bits) beyond the kernel's range. */
INL void BFN(need_trig)(BFN(group) *gr, size_t first, size_t count) {
  if (first >= gr->lo && first + count <= gr->hi)
    return;
  const size_t ndof = gr->b->t->ndof;
  gr->lo = first;
  gr->hi = ndof - first < CHUNK ? ndof : first + CHUNK;
  const size_t n = gr->hi - gr->lo;
  BVI ok = (BVI){0} - 1;
  for (size_t d = 0; d < n; d++) {
    BVD x;
    BFN(gather)(gr, first + d, &x);
    RK__SINCOS_LANES(BVD, BVU, BVI, &x, gr->sn + d * BW, gr->cs + d * BW, ok);
  }
  long long all = -1;
  for (int l = 0; l < BW; l++)
    all &= ok[l];
  if (!all)
    for (size_t d = 0; d < n; d++)
      for (int l = 0; l < BW; l++) {
        const double x = gr->b->q[gr->g + l][first + d];
        if (!(fabs(x) < 1e5))
          rk_sincos(x, &gr->sn[d * BW + (size_t)l], &gr->cs[d * BW + (size_t)l]);
      }
}

/* *u, *v turned by (s, c), u towards v: columns.h's rk__cols_turn on one row of each column. */
INL void BFN(turn)(BVD *u, BVD *v, const BVD *s, const BVD *c) {
  const BVD a = *u, bb = *v;
  *u = a * *c + bb * *s;
  *v = bb * *c - a * *s;
}

/* Row r of joint f onto parent frame P into O, for the kinds up to RK__FK_MATRIX in the form
 * `kind`: the translation (p0 t0 + p3) + (p1 t1 + p2 t2), then the columns, u turned towards v by
 * (s, c) about the third axis (RK__FK_ROT_*), copied (RK__FK_TRANSLATE) or from the linear part l
 * (RK__FK_MATRIX). */
INL void BFN(compose_row)(const BFN(group) *gr, const rk__fk_joint *f, int kind, int u, int v,
                          const double *P, double *O, int r, const BVD *s, const BVD *c,
                          const BVD *l) {
  BVD p0, p1, p2, p3;
  GLD(p0, P, E(0, r)), GLD(p1, P, E(1, r)), GLD(p2, P, E(2, r)), GLD(p3, P, E(3, r));
  const BVD o3 = (p0 * f->t[0] + p3) + (p1 * f->t[1] + p2 * f->t[2]);
  GST(O, E(3, r), o3);
  if (kind == RK__FK_MATRIX) {
    const BVD o0 = p0 * l[0] + p1 * l[1] + p2 * l[2];
    const BVD o1 = p0 * l[4] + p1 * l[5] + p2 * l[6];
    const BVD o2 = p0 * l[8] + p1 * l[9] + p2 * l[10];
    GST(O, E(0, r), o0), GST(O, E(1, r), o1), GST(O, E(2, r), o2);
    return;
  }
  BVD m[3] = {p0, p1, p2};
  if (kind != RK__FK_TRANSLATE)
    BFN(turn)(&m[u], &m[v], s, c);
  GST(O, E(0, r), m[0]), GST(O, E(1, r), m[1]), GST(O, E(2, r), m[2]);
}

/* Joint f (a kind up to RK__FK_MATRIX) at (s, c) onto parent frame P into O in the form `kind`
 * (RK__FK_MATRIX for every joint in the baseline pass, as there). Axis a turns column a + 1
 * towards a + 2 (mod 3), as tree_fk.c's turn_about. */
INL void BFN(compose_joint)(const BFN(group) *gr, const rk__fk_joint *f, int kind,
                            const double *P, double *O, const BVD *s, const BVD *c) {
  BVD l[12];
  if (kind == RK__FK_MATRIX)
    for (int i = 0; i < 12; i++)
      if (i % 4 != 3)
        l[i] = f->C[i] + *c * f->P[i] + *s * f->B[i];
  const BVD ss = *s * f->sign;
  const int u = kind == RK__FK_ROT_X ? 1 : kind == RK__FK_ROT_Y ? 2 : 0;
  const int v = kind == RK__FK_ROT_X ? 2 : kind == RK__FK_ROT_Y ? 0 : 1;
#pragma GCC unroll 3
  for (int r = 0; r < 3; r++)
    BFN(compose_row)(gr, f, kind, u, v, P, O, r, &ss, c, l);
}

/* Ball or free joint f onto P into O: tree_fk.c's compose_ball row by row, its three angles
 * from DOFs first .. first + 2 (a free joint's translation first from its first three). */
INL void BFN(compose_ball)(BFN(group) *gr, const rk__fk_joint *f, const double *P, double *O) {
  const size_t first = (size_t)f->dof + (f->kind == RK__FK_FREE ? 3 : 0);
  BFN(need_trig)(gr, first, 3);
  BVD s[3], c[3], t[3];
  for (size_t k = 0; k < 3; k++) {
    memcpy(&s[k], gr->sn + (first - gr->lo + k) * BW, sizeof(BVD));
    memcpy(&c[k], gr->cs + (first - gr->lo + k) * BW, sizeof(BVD));
    if (f->kind == RK__FK_FREE) {
      BFN(gather)(gr, (size_t)f->dof + k, &t[k]);
      t[k] = f->t[k] + t[k];
    } else {
      for (int l = 0; l < BW; l++) /* a broadcast that keeps the sign of a zero */
        t[k][l] = f->t[k];
    }
  }
  BVD m[3][3];
  for (int r = 0; r < 3; r++) {
    BVD p3;
    GLD(m[0][r], P, E(0, r)), GLD(m[1][r], P, E(1, r)), GLD(m[2][r], P, E(2, r));
    GLD(p3, P, E(3, r));
    const BVD o = (m[0][r] * t[0] + p3) + (m[1][r] * t[1] + m[2][r] * t[2]);
    GST(O, E(3, r), o);
  }
  if (f->pre) {
    const double *R = f->C;
    for (int r = 0; r < 3; r++) {
      const BVD p0 = m[0][r], p1 = m[1][r], p2 = m[2][r];
      for (int k = 0; k < 3; k++)
        m[k][r] = p0 * R[k * 4] + p1 * R[k * 4 + 1] + p2 * R[k * 4 + 2];
    }
  }
  for (int k = 0; k < 3; k++) {
    const int a = f->axes[k]; /* x: y towards z, y: z towards x, z: x towards y */
    for (int r = 0; r < 3; r++)
      BFN(turn)(&m[(a + 1) % 3][r], &m[(a + 2) % 3][r], &s[k], &c[k]);
  }
  for (int k = 0; k < 3; k++)
    for (int r = 0; r < 3; r++) {
      if (f->scaled)
        m[k][r] *= f->scale[k];
      GST(O, E(k, r), m[k][r]);
    }
}

/* The group's lanes through the tree: rk_tree_fk's pass (tree_fk.c's tree_fk_body) on each.
 * wide: joints take their short forms (else the matrix form, as the baseline pass); balls: ball
 * and free joints take their form (else their local transform, lane by lane). */
INL void BFN(group_pass)(const block *b, int g, bool wide, bool balls) {
  BFN(group) grs, *gr = &grs;
  gr->b = b;
  gr->g = g;
  gr->lo = gr->hi = 0;
  const rk_tree *t = b->t;
  for (size_t j = 0; j < t->n; j++) {
    const rk__fk_joint *f = &t->fk[j];
    const double *P = f->parent >= 0 ? b->out + (size_t)f->parent * FRAME : b->top;
    double *O = b->out + j * FRAME;
    const bool ball = balls && (f->kind == RK__FK_BALL || f->kind == RK__FK_FREE);
    if (f->kind >= RK__FK_BALL && !ball) {
      local_lanes(b, j, g, BW, P, O);
      continue;
    }
    if (ball) {
      BFN(compose_ball)(gr, f, P, O);
      continue;
    }
    BVD s = {0}, c = s + 1.0;
    if (f->dof >= 0) {
      BFN(need_trig)(gr, (size_t)f->dof, 1);
      memcpy(&s, gr->sn + ((size_t)f->dof - gr->lo) * BW, sizeof s);
      memcpy(&c, gr->cs + ((size_t)f->dof - gr->lo) * BW, sizeof c);
    }
    /* One copy per form, its columns constant. */
#define FORM(kind)                                                                                 \
  case kind:                                                                                       \
    BFN(compose_joint)(gr, f, kind, P, O, &s, &c);                                                 \
    break;
    switch (wide ? f->kind : RK__FK_MATRIX) {
      FORM(RK__FK_TRANSLATE)
      FORM(RK__FK_ROT_X)
      FORM(RK__FK_ROT_Y)
      FORM(RK__FK_ROT_Z)
    default:
      BFN(compose_joint)(gr, f, RK__FK_MATRIX, P, O, &s, &c);
    }
#undef FORM
  }
}

#undef GLD
#undef GST
#undef BVD
#undef BVU
#undef BVI
#undef BFN
#undef BFN_
#undef BFN__
#undef BW
