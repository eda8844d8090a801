/* A tiny program that uses an installed rigkit: builds a two-joint skeleton and runs FK. */
#include <rigkit/rigkit.h>
#include <stdio.h>

int main(void) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(0, 1, 0);
  rk_skeleton_builder_add_joint(b, "root", -1, &x, 0);
  rk_skeleton_builder_add_joint(b, "tip", 0, &x, 0);
  GError *error = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, &error);
  rk_skeleton_builder_free(b);
  if (!s) {
    fprintf(stderr, "consumer: %s\n", error->message);
    return 1;
  }
  rk_mat4 m[2];
  rk_skeleton_rest_models(s, m);
  printf("rigkit %s tip y=%g\n", rk_version_string(), m[1].m[13]);
  int ok = m[1].m[13] == 2.0;
  rk_skeleton_unref(s);
  return ok ? 0 : 1;
}
