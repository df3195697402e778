/* hrelay's messages on stderr: verbose lines (rank 0) and warnings. */
#ifndef HRELAY_SHIM_LOG_H
#define HRELAY_SHIM_LOG_H

/* Prints "hrelay: " + message + newline to stderr if this is rank 0 of MPI_COMM_WORLD and
 * HRELAY_VERBOSE >= level. */
void shim_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "hrelay: warning: " + message + newline to stderr (on the calling rank). */
void shim_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints each line of a newline-separated list (shim_config_from_env's warnings) as one
 * warning. */
void shim_warn_lines(const char *text);

#endif
