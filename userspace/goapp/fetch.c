// SPDX-License-Identifier: GPL-2.0
/* A Go service's trace from its net/http/pprof, over libcurl opened at run time. */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "goapp/fetch.h"
#include "util/msg.h"

#define CURL_SONAME "libcurl.so.4"
#define TRACE_PATH "/debug/pprof/trace"
/* What an HTTP error's message quotes of the service's answer. */
#define BODY_MAX 200

/*
 * The libcurl functions fetch_trace() calls, without their curl_ prefix:
 * gotrace is not linked with libcurl, which would map it and its TLS, SSH,
 * LDAP, ... libraries into every command; fetch_open() dlopen()s it.
 */
#define CURL_FUNCS(X) \
	X(global_init) X(easy_init) X(easy_setopt) X(easy_perform) X(easy_getinfo) \
	X(easy_strerror) X(easy_cleanup)

#define CURL_FUNC_PTR(name) typeof(&curl_##name) name;
static struct {
	CURL_FUNCS(CURL_FUNC_PTR)
} curl;
#undef CURL_FUNC_PTR

/* One fetch: the trace goes to @file while the status is 200, else its start to @body. */
struct fetch {
	CURL *h;
	FILE *file;
	long status;
	char body[BODY_MAX + 1];
	size_t body_len;
	int write_errno;	/* writing @file failed: why */
};

static bool bind_funcs(void *lib)
{
	bool ok = true;

#define CURL_BIND(name) \
	ok = ok && (curl.name = (typeof(curl.name))dlsym(lib, "curl_" #name));
	CURL_FUNCS(CURL_BIND)
#undef CURL_BIND
	return ok;
}

bool fetch_open(const char *cmd)
{
	void *lib = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib || !bind_funcs(lib)) {
		msg_err(cmd, "cannot open " CURL_SONAME ": %s: install libcurl4, or fetch the "
			"trace yourself (curl -o APP.trace URL" TRACE_PATH "?seconds=S) while "
			"gotrace records, and join them with gotrace merge", dlerror());
		return false;
	}
	if (!curl.global_init(CURL_GLOBAL_DEFAULT))
		return true;
	msg_err(cmd, "cannot set up libcurl: out of memory");
	return false;
}

static size_t fetch_write(char *data, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;
	size_t len = size * n, room;

	if (!f->status)
		curl.easy_getinfo(f->h, CURLINFO_RESPONSE_CODE, &f->status);
	if (f->status != 200) {
		room = BODY_MAX - f->body_len;
		memcpy(f->body + f->body_len, data, len < room ? len : room);
		f->body_len += len < room ? len : room;
		return len;
	}
	if (fwrite(data, 1, len, f->file) == len)
		return len;
	f->write_errno = errno;
	return 0;
}

/* The first line of the service's answer, for a message. */
static const char *body_line(struct fetch *f)
{
	f->body[f->body_len] = '\0';
	f->body[strcspn(f->body, "\r\n")] = '\0';
	return f->body;
}

/* The message for an answer that is not a trace; always 1. */
static int http_error(const char *cmd, const char *url, struct fetch *f)
{
	if (f->status == 404)
		msg_err(cmd, "%s has no " TRACE_PATH " (HTTP 404): import _ \"net/http/pprof\" in "
			"the service, or give the address that serves it", url);
	else
		msg_err(cmd, "%s" TRACE_PATH " answered HTTP %ld: %s: see the service's log",
			url, f->status, *body_line(f) ? f->body : "(nothing said)");
	return 1;
}

/* The message for a transfer that failed; always 1. */
static int curl_error(const char *cmd, const char *url, const char *path, CURLcode rc,
		      const struct fetch *f)
{
	if (f->write_errno)
		msg_err(cmd, "cannot write %s: %s: choose another file with -o", path,
			strerror(f->write_errno));
	else if (rc == CURLE_COULDNT_CONNECT)
		msg_err(cmd, "cannot connect to %s: is the service serving net/http/pprof at %s?",
			url, url);
	else
		msg_err(cmd, "cannot fetch %s" TRACE_PATH ": %s: check the URL", url,
			curl.easy_strerror(rc));
	return 1;
}

/*
 * The hosts no proxy is used for: the environment's no_proxy (or NO_PROXY), and this
 * machine's loopback names, which libcurl would otherwise send to http_proxy too: a
 * service traced here is on this machine more often than not. A lone "*" (every host)
 * stays alone: libcurl reads it so only then. NULL if out of memory.
 */
static char *noproxy_hosts(void)
{
	const char *env = getenv("no_proxy");
	char *hosts;

	if (!env || !*env)
		env = getenv("NO_PROXY");
	if (!env)
		env = "";
	if (!strcmp(env, "*"))
		return strdup(env);
	if (asprintf(&hosts, "%s%slocalhost,127.0.0.1,::1", env, *env ? "," : "") < 0)
		return NULL;
	return hosts;
}

/* A transfer into @f; its CURLcode. @url's query and trailing slashes are left out. */
static CURLcode perform(struct fetch *f, const char *url, double seconds)
{
	size_t len = strcspn(url, "?#");
	char *full, *noproxy;
	CURLcode rc;

	while (len && url[len - 1] == '/')
		len--;
	if (asprintf(&full, "%.*s" TRACE_PATH "?seconds=%g", (int)len, url, seconds) < 0)
		return CURLE_OUT_OF_MEMORY;
	noproxy = noproxy_hosts();
	if (!noproxy) {
		free(full);
		return CURLE_OUT_OF_MEMORY;
	}
	curl.easy_setopt(f->h, CURLOPT_URL, full);
	curl.easy_setopt(f->h, CURLOPT_NOPROXY, noproxy);
	curl.easy_setopt(f->h, CURLOPT_WRITEFUNCTION, fetch_write);
	curl.easy_setopt(f->h, CURLOPT_WRITEDATA, f);
	curl.easy_setopt(f->h, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(f->h, CURLOPT_CONNECTTIMEOUT, 10L);
	rc = curl.easy_perform(f->h);
	if (!rc && !f->status)	/* an answer without a body */
		curl.easy_getinfo(f->h, CURLINFO_RESPONSE_CODE, &f->status);
	free(noproxy);
	free(full);
	return rc;
}

int fetch_trace(const char *cmd, const char *url, double seconds, const char *path)
{
	struct fetch f = { .h = curl.easy_init() };
	CURLcode rc;
	int ret;

	if (!f.h) {
		msg_err(cmd, "cannot set up libcurl: out of memory");
		return 1;
	}
	f.file = fopen(path, "w");
	if (!f.file) {
		msg_err(cmd, "cannot create %s: %s: choose another file with -o", path,
			strerror(errno));
		curl.easy_cleanup(f.h);
		return 1;
	}
	rc = perform(&f, url, seconds);
	if (fclose(f.file) && !rc && f.status == 200) {
		f.write_errno = errno;
		rc = CURLE_WRITE_ERROR;
	}
	if (rc)
		ret = curl_error(cmd, url, path, rc, &f);
	else
		ret = f.status == 200 ? 0 : http_error(cmd, url, &f);
	if (ret)
		unlink(path);
	curl.easy_cleanup(f.h);
	return ret;
}
