/* The formats rigkit writes (export_format.c): for each, its name and extension, its writer, the
 * file it writes beside the output, and how its files read back. rk_export_format_from_path,
 * rk_export_format_name, rk_export_format_available, rk_export_output_files and
 * rk_export_readback_of (rigkit/exporters.h) answer from the table rk_export_file writes by.
 *
 * Index: rk__export_writer, rk__export_writer_for
 */
#ifndef RK_EXPORT_FORMAT_H
#define RK_EXPORT_FORMAT_H

#include <rigkit/exporters.h>

/** A format's writer: writes asset to path (atomically) or fails as rk_export_file does. */
typedef bool (*rk__export_writer)(const rk_asset *asset, const char *path,
                                  const rk_export_options *opts, GError **error);

/** The writer of the format rk_export_file writes to path with opts (opts->format, else path's
 * extension; opts not NULL), or NULL when this build writes no such format. */
rk__export_writer rk__export_writer_for(const char *path, const rk_export_options *opts);

#endif
