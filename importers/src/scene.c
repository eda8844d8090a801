/* Freeing the plain-C scene that assimp_scene.c fills (scene.h). */
#include "scene.h"

#include <string.h>

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
  for (unsigned i = 0; i < scene->material_count; i++)
    g_free(scene->materials[i].name);
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
