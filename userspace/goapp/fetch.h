/* SPDX-License-Identifier: GPL-2.0 */
/* A Go service's own trace from its net/http/pprof: fetch.c (libcurl) or fetch_none.c. */
#ifndef GOTRACE_FETCH_H
#define GOTRACE_FETCH_H

#include <stdbool.h>

/*
 * Make fetch_trace() usable: fetch.c opens libcurl.so.4 (dlopen, as
 * kmod/module_kmod.c opens libkmod), fetch_none.c, in static builds, cannot.
 * False after a message naming what is missing and the fix.
 */
bool fetch_open(const char *cmd);

/*
 * GET @url/debug/pprof/trace?seconds=@seconds into @path: 0, or 1 after a
 * message naming the cause (refused connection, HTTP status and what the
 * service said) and the fix. @path is removed unless the service sent a trace.
 */
int fetch_trace(const char *cmd, const char *url, double seconds, const char *path);

#endif /* GOTRACE_FETCH_H */
