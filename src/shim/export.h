/* Which of libhrelay.so's functions the program sees. */
#ifndef HRELAY_SHIM_EXPORT_H
#define HRELAY_SHIM_EXPORT_H

/* Marks a function exported from libhrelay.so: the MPI_* entry points, the Fortran names and
 * hrelay.h's API. Everything else is built with -fvisibility=hidden (and the link keeps only
 * the names src/shim/local.mk's -export-symbols-regex lets through). */
#define SHIM_EXPORT __attribute__((visibility("default")))

#endif
