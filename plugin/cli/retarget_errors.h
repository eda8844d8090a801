/* Why a clip of `rigkit retarget` failed: a small closed set of stable codes that the report
 * (`error_code`), the summary table, the messages on stderr and the review page carry beside the
 * error's message, so a pipeline can sort failures without parsing prose. README.md lists them
 * with what each means; a code is never renamed, a new kind of failure gets a new one. */
#ifndef RK_RETARGET_ERRORS_H
#define RK_RETARGET_ERRORS_H

/** The kinds of failure, one per step a clip can fail at. */
typedef enum rk__rt_error {
  RK__RT_ERROR_TARGET_UNUSABLE,   /* the target cannot be read or mapped (the command line refuses
                                     such a target before any clip runs) */
  RK__RT_ERROR_SOURCE_UNREADABLE, /* the source file cannot be imported */
  RK__RT_ERROR_NO_CLIP,           /* the file holds no clip, or not the one --clip names */
  RK__RT_ERROR_SOURCE_UNMAPPED,   /* the source rig cannot be mapped onto the humanoid profile */
  RK__RT_ERROR_OUTPUT_CONFLICT,   /* the clip's output would replace an input or another clip's
                                     output, or --out cannot hold the file's clips */
  RK__RT_ERROR_RETARGET_FAILED,   /* the retargeter could not be built or run, or the key
                                     reduction failed */
  RK__RT_ERROR_WRITE_FAILED,      /* the output (or its plot) could not be written */
  RK__RT_ERROR_READBACK_FAILED,   /* the written output does not read back as one clip of the
                                     target's joints (it is removed) */
} rk__rt_error;

/** The stable code of a kind of failure ("source-unreadable", ...); static. */
const char *rk__rt_error_name(rk__rt_error error);

#endif
