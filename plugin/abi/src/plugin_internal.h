/* Internals of librigkit_plugin.so: handles, the handle registry, error text, spaces, host
 * skeletons, the two ABI versions' tables. */
#ifndef RK_PLUGIN_INTERNAL_H
#define RK_PLUGIN_INTERNAL_H

#include <rigkit/plugin.h>
#include <rigkit/rigkit.h>

/* Kinds of handle, stored first in every handle and in the registry. */
typedef enum rk__plugin_kind {
  RK__PLUGIN_ASSET = 0x41534554,   /* 'ASET' */
  RK__PLUGIN_SESSION = 0x53455353, /* 'SESS' */
} rk__plugin_kind;

/* An opened file. Reference counted: the host's handle holds one reference, each session built
 * from it another, so closing the handle never pulls an asset from under a session. */
struct rk_plugin_asset {
  rk__plugin_kind kind;
  gint refs;
  rk_asset *asset;
  bool isolated; /* read in the import helper process */
};

/* Records a live handle (the registry refuses stale or foreign pointers). */
void rk__plugin_register(void *handle, rk__plugin_kind kind);
/* Removes a live handle of this kind; false when it was not registered. */
bool rk__plugin_unregister(void *handle, rk__plugin_kind kind);
/* True when handle is a live handle of this kind. */
bool rk__plugin_is_live(const void *handle, rk__plugin_kind kind);

/* Writes a printf-style message into the host's buffer (truncated at a UTF-8 boundary; nothing
 * when err is NULL or err_size is 0) and returns status. */
int rk__plugin_fail(char *err, size_t err_size, int status, const char *format, ...)
    G_GNUC_PRINTF(4, 5);
/* Copies a GError's message into the host's buffer and returns its status. */
int rk__plugin_fail_gerror(char *err, size_t err_size, const GError *error);
/* Copies text into buf of size bytes, NUL-terminated, cut at a UTF-8 character boundary. */
void rk__plugin_copy_text(char *buf, size_t size, const char *text);

/* Checks an rk_plugin_space and returns metres per unit (0 -> 1); false with a message. */
int rk__plugin_space_check(const rk_plugin_space *space, double *mpu, char *err, size_t err_size);
/* Host -> canonical and back for one local transform; `root` applies the axis change. */
rk_transform rk__plugin_to_canonical(const float *trs, const rk_plugin_space *space, double mpu,
                                     bool root);
void rk__plugin_from_canonical(const rk_transform *x, const rk_plugin_space *space, double mpu,
                               bool root, float *trs);

/* A host's skeleton built into a canonical one (plugin_skeleton.c). */
typedef struct rk__plugin_host_rig {
  rk_skeleton *skeleton; /* own reference */
  size_t n;
  int *host_to_skel; /* host joint -> skeleton joint */
  int *skel_to_host;
  int32_t *host_parents; /* host order */
  uint32_t *host_flags;
} rk__plugin_host_rig;

/* Checks the host's arrays and builds *out (rest poses converted from `space` with mpu metres per
 * unit); every message starts with `what` ("target skeleton"). On failure *out is empty. */
int rk__plugin_host_rig_build(const rk_plugin_skeleton *k, const rk_plugin_space *space,
                              double mpu, const char *what, rk__plugin_host_rig *out, char *err,
                              size_t err_size);
/* Releases what a host rig holds and empties it. */
void rk__plugin_host_rig_clear(rk__plugin_host_rig *r);

/* The asset of a host target's skeleton (rig) and desc->target_meshes, as an unregistered handle
 * the session owns (plugin_host_mesh.c). */
int rk__plugin_host_target(const rk_plugin_session_desc *desc, const rk__plugin_host_rig *rig,
                           double mpu, rk_plugin_asset **out, char *err, size_t err_size);

/* Wraps an asset into a new registered handle (the handle takes the asset). */
rk_plugin_asset *rk__plugin_asset_wrap(rk_asset *asset, bool isolated);
rk_plugin_asset *rk__plugin_asset_ref(rk_plugin_asset *a);
void rk__plugin_asset_unref(rk_plugin_asset *a);

/* The asset and session functions of the table. */
int rk__plugin_asset_open_file(const char *path, const rk_plugin_import_options *opts,
                               rk_plugin_asset **out, char *err, size_t err_size);
int rk__plugin_asset_open_memory(const void *data, size_t size, const char *name,
                                 const rk_plugin_import_options *opts, rk_plugin_asset **out,
                                 char *err, size_t err_size);
int rk__plugin_asset_from_host(const rk_plugin_host_clip *clip, rk_plugin_asset **out, char *err,
                               size_t err_size);
int rk__plugin_asset_close(rk_plugin_asset *asset);
int rk__plugin_asset_info(const rk_plugin_asset *asset, rk_plugin_asset_info *out, char *err,
                          size_t err_size);
int rk__plugin_asset_clip(const rk_plugin_asset *asset, uint32_t index, rk_plugin_clip_info *out,
                          char *err, size_t err_size);
int rk__plugin_asset_joints(const rk_plugin_asset *asset, const rk_plugin_space *space,
                            uint32_t capacity, const char **names, int32_t *parents, float *rest,
                            uint32_t *flags, char *err, size_t err_size);

int rk__plugin_session_new(const rk_plugin_session_desc *desc, rk_plugin_session **out, char *err,
                           size_t err_size);
int rk__plugin_session_close(rk_plugin_session *session);
int rk__plugin_session_run(rk_plugin_session *session, char *err, size_t err_size);
int rk__plugin_session_result(const rk_plugin_session *session, rk_plugin_result *out, char *err,
                              size_t err_size);
int rk__plugin_session_joints(const rk_plugin_session *session, uint32_t capacity,
                              const char **names, int32_t *parents, float *rest, uint32_t *flags,
                              char *err, size_t err_size);
int rk__plugin_session_keys(const rk_plugin_session *session, int32_t keys, uint32_t first_frame,
                            uint32_t frame_count, float *translations, float *rotations,
                            float *scales, char *err, size_t err_size);
int rk__plugin_session_track(const rk_plugin_session *session, uint32_t joint, int32_t channel,
                             int32_t keys, uint32_t capacity, float *frames, float *values,
                             uint32_t *count, char *err, size_t err_size);
int rk__plugin_session_contact(const rk_plugin_session *session, uint32_t index, int32_t *joint,
                               uint32_t capacity, int32_t *intervals, uint32_t *count, char *err,
                               size_t err_size);
int rk__plugin_session_map_text(const rk_plugin_session *session, char *text, size_t text_size,
                                size_t *needed, char *err, size_t err_size);
int rk__plugin_session_export(const rk_plugin_session *session, const char *path, char *err,
                              size_t err_size);

/* Imports a file (path) or bytes (data, size, named path) in the helper process
 * (plugin_isolate.c): *out receives the asset, or the status and message say why not. */
int rk__plugin_import_isolated(const char *path, const void *data, size_t size,
                               const rk_plugin_import_options *opts, rk_asset **out, char *err,
                               size_t err_size);

/* The members both ABI versions' tables share (the others differ in how they read their
 * arguments, or are new in ABI 2). */
#define RK__PLUGIN_API_SHARED                                                                      \
  .status_name = rk__plugin_status_name, .asset_close = rk__plugin_asset_close,                    \
  .asset_info = rk__plugin_asset_info, .asset_clip = rk__plugin_asset_clip,                        \
  .asset_joints = rk__plugin_asset_joints, .session_close = rk__plugin_session_close,              \
  .session_run = rk__plugin_session_run, .session_result = rk__plugin_session_result,              \
  .session_joints = rk__plugin_session_joints, .session_keys = rk__plugin_session_keys,            \
  .session_track = rk__plugin_session_track, .session_contact = rk__plugin_session_contact,        \
  .session_map_text = rk__plugin_session_map_text, .session_export = rk__plugin_session_export

/* The status names and struct sizes of ABI 2 (the v1 table answers ABI 1's sizes itself). */
const char *rk__plugin_status_name(int status);
size_t rk__plugin_struct_size(const char *name);
/* The table ABI 1 hosts get (plugin_abi_v1.c). */
const rk_plugin_api *rk__plugin_api_v1(void);

#endif
