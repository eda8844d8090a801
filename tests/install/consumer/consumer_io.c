/* A tiny program that uses an installed rigkit's importers and exporters: reads a file, writes it
 * back as GLB, prints the joint count. */
#include <rigkit/exporters.h>
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  GError *error = NULL;
  rk_asset *a = rk_import_file(argv[1], NULL, &error);
  if (!a || !rk_export_file(a, argv[2], NULL, &error)) {
    fprintf(stderr, "consumer_io: %s\n", error->message);
    return 1;
  }
  printf("%zu joints\n", rk_skeleton_joint_count(rk_asset_skeleton(a)));
  rk_asset_free(a);
  return 0;
}
