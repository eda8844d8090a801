/* The plain-C scene that assimp_scene.c fills (scene.h): queries on its node tree, and freeing it. */
#include "scene.h"

#include <string.h>

bool rk__scene_node_has_payload(const rk__scene_node *n) {
  return n->mesh_count > 0 || n->is_camera || n->is_light;
}

/* Binds a channel or bone name to a node. Names are unique for glTF (the JSON pre-pass renames
 * duplicates); elsewhere a shared name binds to the candidate that is not a mesh, camera or light
 * holder, the first in preorder otherwise. *ambiguous tells whether there was a choice. */
int rk__scene_bind_name(const rk__scene *s, const char *name, bool *ambiguous) {
  int first = -1, best = -1, count = 0;
  for (unsigned i = 0; i < s->node_count; i++) {
    if (strcmp(s->nodes[i].name, name) != 0)
      continue;
    count++;
    if (first < 0)
      first = (int)i;
    if (best < 0 && !rk__scene_node_has_payload(&s->nodes[i]))
      best = (int)i;
  }
  if (ambiguous)
    *ambiguous = count > 1;
  return best >= 0 ? best : first;
}

rk_mat4 rk__scene_node_world(const rk__scene *s, int i) {
  rk_mat4 w = rk_mat4_identity();
  for (int j = i; j >= 0; j = s->nodes[j].parent) {
    rk_mat4 t = rk_mat4_mul(&s->nodes[j].local, &w);
    w = t;
  }
  return w;
}

void rk__scene_channel_clear(rk__scene_channel *ch) {
  g_free(ch->node_name);
  g_free(ch->pos_times);
  g_free(ch->pos_values);
  g_free(ch->rot_times);
  g_free(ch->rot_values);
  g_free(ch->scale_times);
  g_free(ch->scale_values);
  memset(ch, 0, sizeof *ch);
}

void rk__scene_clear(rk__scene *scene) {
  for (unsigned i = 0; i < scene->node_count; i++) {
    g_free(scene->nodes[i].name);
    g_free(scene->nodes[i].meshes);
  }
  g_free(scene->nodes);
  for (unsigned i = 0; i < scene->mesh_count; i++) {
    rk__scene_mesh *m = &scene->meshes[i];
    g_free(m->name);
    g_free(m->positions);
    g_free(m->normals);
    g_free(m->texcoords);
    g_free(m->indices);
    for (unsigned b = 0; b < m->bone_count; b++) {
      g_free(m->bones[b].name);
      g_free(m->bones[b].vertex);
      g_free(m->bones[b].weight);
    }
    g_free(m->bones);
  }
  g_free(scene->meshes);
  for (unsigned i = 0; i < scene->material_count; i++) {
    rk__scene_material *m = &scene->materials[i];
    g_free(m->name);
    g_free(m->texture_path);
    g_free(m->texture_data);
    g_free(m->texture_hint);
    g_free(m->texture_file);
    g_free(m->texture_mime);
  }
  g_free(scene->materials);
  for (unsigned i = 0; i < scene->anim_count; i++) {
    rk__scene_anim *a = &scene->anims[i];
    g_free(a->name);
    for (unsigned c = 0; c < a->channel_count; c++)
      rk__scene_channel_clear(&a->channels[c]);
    g_free(a->channels);
  }
  g_free(scene->anims);
  memset(scene, 0, sizeof *scene);
}
