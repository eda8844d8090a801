/* The stable codes of failed clips (retarget_errors.h). */
#include "retarget_errors.h"

#include <glib.h>

const char *rk__rt_error_name(rk__rt_error error) {
  static const char *const names[] = {
      [RK__RT_ERROR_TARGET_UNUSABLE] = "target-unusable",
      [RK__RT_ERROR_SOURCE_UNREADABLE] = "source-unreadable",
      [RK__RT_ERROR_NO_CLIP] = "no-clip",
      [RK__RT_ERROR_SOURCE_UNMAPPED] = "source-unmapped",
      [RK__RT_ERROR_OUTPUT_CONFLICT] = "output-conflict",
      [RK__RT_ERROR_RETARGET_FAILED] = "retarget-failed",
      [RK__RT_ERROR_WRITE_FAILED] = "write-failed",
      [RK__RT_ERROR_READBACK_FAILED] = "readback-failed",
  };
  return (unsigned)error < G_N_ELEMENTS(names) ? names[error] : "failed";
}
