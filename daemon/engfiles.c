/* SPDX-License-Identifier: MIT */
/**
 * DOC: engine option files
 *
 * An engine option may name a file (dla.groups=FILE). The daemon reads such
 * files itself, beforehand, and hands their contents to the chain's
 * parsing (eng_chain_parse_files()), so that no parse ever touches a file
 * system: not the reroute worker, not a thread holding a lock.
 *
 * A file option must name a regular file in engine_files_dir: a name
 * relative to it, or an absolute path inside it; anything else (a device,
 * a FIFO, a socket, a path out of the directory, through ".." or a
 * symbolic link) is refused with the reason, and a path outside the
 * directory is refused before anything is looked up, so the answer never
 * tells whether such a path exists. A file is read in a thread of its own,
 * at most ENG_OPT_FILE_MAX bytes, within ENGF_TIMEOUT_MS: a read that
 * hangs (a hung file system) is given up and reported, and the thread is
 * left to finish on its own.
 *
 * engf_prepare() reads every file a chain's options name into the cache
 * (when the configuration is loaded or reloaded, when a chain is selected
 * through the API); engf_source() serves the chain's parsing from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "svc/clock.h"
#include "daemon/engfiles.h"

#define ENGF_CACHE_MAX 16

struct engf_entry {
	char *name, *data;
	size_t len;
};

/* struct engf - the files read, newest first; @mu guards them */
struct engf {
	pthread_mutex_t mu;
	struct engf_entry e[ENGF_CACHE_MAX];
	unsigned n;
	uint64_t gen;		/* +1 whenever a file's contents change */
};

struct engf *engf_new(void)
{
	struct engf *f = calloc(1, sizeof(*f));

	if (f)
		pthread_mutex_init(&f->mu, NULL);
	return f;
}

void engf_free(struct engf *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < f->n; i++) {
		free(f->e[i].name);
		free(f->e[i].data);
	}
	pthread_mutex_destroy(&f->mu);
	free(f);
}

/* --- names ------------------------------------------------------------------ */

/*
 * The path @value names in @dir (into @path), checked on its letters alone:
 * a name relative to @dir or an absolute path under it, no "." or ".."
 * component. 0, or -1 with @err.
 */
static int name_path(const char *dir, const char *value, char *path, size_t size, struct fab_err *err)
{
	size_t dl = strlen(dir);
	const char *rel = value;

	if (!dir[0]) {
		fab_err_set(err, "'%s': engine_files_dir is empty, so file options are refused", value);
		return -1;
	}
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (value[0] == '/') {
		if (strncmp(value, dir, dl) || value[dl] != '/') {
			fab_err_set(err, "'%s' is not in engine_files_dir (%.*s): put the file there and name it "
				    "relative to it", value, (int)dl, dir);
			return -1;
		}
		rel = value + dl + 1;
	}
	for (const char *p = rel; *p; p += strcspn(p, "/"), p += *p == '/') {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			fab_err_set(err, "'%s': expected a file name in engine_files_dir (%.*s), without "
				    "empty, '.' or '..' parts", value, (int)dl, dir);
			return -1;
		}
	}
	if (!*rel || (size_t)snprintf(path, size, "%.*s/%s", (int)dl, dir, rel) >= size) {
		fab_err_set(err, "'%s': expected a file name in engine_files_dir", value);
		return -1;
	}
	return 0;
}

/* --- reading, in a thread of its own ------------------------------------------ */

/*
 * struct job - one file read; freed by whichever of the reader and the
 * caller lets go of it last (@refs)
 */
struct job {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs, done, rc;
	char dir[PATH_MAX], path[PATH_MAX], value[PATH_MAX];
	char *data;
	size_t len;
	struct fab_err err;
};

static void job_put(struct job *j)
{
	int last;

	pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (!last)
		return;
	free(j->data);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

/* @fd's regular file, all of it (at most ENG_OPT_FILE_MAX bytes); 0 or -1 with @j->err. */
static int read_fd(struct job *j, int fd, const struct stat *st)
{
	size_t got = 0;

	if (st->st_size > (off_t)ENG_OPT_FILE_MAX) {
		fab_err_set(&j->err, "'%s' is larger than %u bytes", j->value, ENG_OPT_FILE_MAX);
		return -1;
	}
	if (!(j->data = malloc((size_t)st->st_size + 1))) {
		fab_err_set(&j->err, "out of memory");
		return -1;
	}
	while (got < (size_t)st->st_size) {
		ssize_t n = read(fd, j->data + got, (size_t)st->st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fab_err_set(&j->err, "'%s': %s", j->value, n ? strerror(errno) : "shorter than its size");
			return -1;
		}
		got += (size_t)n;
	}
	j->data[got] = '\0';
	j->len = got;
	return 0;
}

/* Resolve, check and read @j->path; 0 or -1 with @j->err. */
static int read_checked(struct job *j)
{
	char real_dir[PATH_MAX], real[PATH_MAX];
	struct stat st, fst;
	size_t dl;
	int fd, rc;

	if (!realpath(j->dir, real_dir)) {
		fab_err_set(&j->err, "engine_files_dir %s: %s", j->dir, strerror(errno));
		return -1;
	}
	if (!realpath(j->path, real)) {
		fab_err_set(&j->err, "'%s': %s", j->value, errno == ENOENT ? "no such file in engine_files_dir" :
			    strerror(errno));
		return -1;
	}
	dl = strlen(real_dir);
	if (strncmp(real, real_dir, dl) || (real[dl] != '/' && dl > 1)) {
		fab_err_set(&j->err, "'%s' leads out of engine_files_dir (%s) through a symbolic link", j->value,
			    real_dir);
		return -1;
	}
	if (stat(real, &st) || !S_ISREG(st.st_mode)) {
		fab_err_set(&j->err, "'%s' is not a regular file", j->value);
		return -1;
	}
	/* O_NONBLOCK: were it swapped for a FIFO meanwhile, the open would not wait for a writer */
	fd = open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fab_err_set(&j->err, "'%s': %s", j->value, strerror(errno));
		return -1;
	}
	if (fstat(fd, &fst) || !S_ISREG(fst.st_mode) || fst.st_ino != st.st_ino || fst.st_dev != st.st_dev) {
		fab_err_set(&j->err, "'%s' is not a regular file", j->value);
		close(fd);
		return -1;
	}
	rc = read_fd(j, fd, &fst);
	close(fd);
	return rc;
}

static void *reader(void *arg)
{
	struct job *j = arg;
	int rc = read_checked(j);

	pthread_mutex_lock(&j->mu);
	j->rc = rc;
	j->done = 1;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	job_put(j);
	return NULL;
}

/* Wait for @j until @ms have passed; 1 when it is done. */
static int wait_done(struct job *j, unsigned ms)
{
	struct timespec until = svc_deadline(CLOCK_MONOTONIC, ms);
	int done;

	pthread_mutex_lock(&j->mu);
	while (!j->done && pthread_cond_timedwait(&j->cv, &j->mu, &until) != ETIMEDOUT)
		;
	done = j->done;
	pthread_mutex_unlock(&j->mu);
	return done;
}

static struct job *job_new(const char *dir, const char *value, const char *path)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	pthread_mutex_init(&j->mu, NULL);
	svc_cond_init_monotonic(&j->cv);
	j->refs = 2;	/* the caller's and the reader's */
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	snprintf(j->value, sizeof(j->value), "%s", value);
	snprintf(j->path, sizeof(j->path), "%s", path);
	return j;
}

int engf_read(const char *dir, const char *value, char **data, size_t *len, struct fab_err *err)
{
	char path[PATH_MAX];
	pthread_attr_t attr;
	pthread_t th;
	struct job *j;
	int rc = -1;

	*data = NULL;
	*len = 0;
	if (name_path(dir, value, path, sizeof(path), err))
		return -1;
	if (!(j = job_new(dir, value, path))) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, reader, j)) {
		pthread_attr_destroy(&attr);
		j->refs = 1;
		job_put(j);
		fab_err_set(err, "cannot start a thread to read '%s'", value);
		return -1;
	}
	pthread_attr_destroy(&attr);
	if (!wait_done(j, ENGF_TIMEOUT_MS)) {
		fab_err_set(err, "'%s' could not be read within %u ms (a hung file system?)", value, ENGF_TIMEOUT_MS);
	} else if (j->rc) {
		*err = j->err;
	} else {
		*data = j->data;
		*len = j->len;
		j->data = NULL;
		rc = 0;
	}
	job_put(j);
	return rc;
}

/* --- the cache ----------------------------------------------------------------- */

/* With @f->mu held: the entry of @value, or NULL. */
static struct engf_entry *find(struct engf *f, const char *value)
{
	for (unsigned i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].name, value))
			return &f->e[i];
	return NULL;
}

/* Keep @data (taken) as @value's contents, first in the cache. */
static int keep(struct engf *f, const char *value, char *data, size_t len)
{
	struct engf_entry e = { strdup(value), data, len }, *old;

	if (!e.name) {
		free(data);
		return -1;
	}
	pthread_mutex_lock(&f->mu);
	old = find(f, value);
	if (!old || old->len != len || memcmp(old->data, data, len))
		f->gen++;
	if (old) {
		free(old->name);
		free(old->data);
		*old = f->e[--f->n];
	}
	if (f->n == ENGF_CACHE_MAX) {	/* the oldest goes */
		free(f->e[f->n - 1].name);
		free(f->e[f->n - 1].data);
		f->n--;
	}
	memmove(&f->e[1], &f->e[0], f->n * sizeof(f->e[0]));
	f->e[0] = e;
	f->n++;
	pthread_mutex_unlock(&f->mu);
	return 0;
}

struct prep {
	struct engf *f;
	const char *dir;
};

static int prep_read(void *ud, const char *value, char **data, size_t *len, struct fab_err *err)
{
	struct prep *p = ud;

	if (engf_read(p->dir, value, data, len, err))
		return -1;
	if (keep(p->f, value, *data, *len)) {
		*data = NULL;
		fab_err_set(err, "out of memory");
		return -1;
	}
	*data = NULL;	/* the cache holds it; the chain parsed here is dropped */
	*len = 0;
	return 0;
}

int engf_prepare(struct engf *f, const char *dir, const char *chain, const char *options, struct fab_err *err)
{
	struct prep p = { f, dir };
	struct eng_files files = { prep_read, &p };
	struct eng_chain c;

	if (eng_chain_parse_files(&c, chain, options, &files, err))
		return -1;
	eng_chain_free(&c);
	return 0;
}

static int cached(void *ud, const char *value, char **data, size_t *len, struct fab_err *err)
{
	struct engf *f = ud;
	struct engf_entry *e;
	int rc = -1;

	pthread_mutex_lock(&f->mu);
	e = find(f, value);
	*len = e ? e->len : 0;
	*data = e ? malloc(e->len + 1) : NULL;
	if (*data) {
		memcpy(*data, e->data, e->len + 1);
		rc = 0;
	}
	pthread_mutex_unlock(&f->mu);
	if (rc)
		fab_err_set(err, e ? "out of memory" : "'%s' was not read beforehand (reload the configuration)",
			    value);
	return rc;
}

uint64_t engf_gen(struct engf *f)
{
	uint64_t g;

	pthread_mutex_lock(&f->mu);
	g = f->gen;
	pthread_mutex_unlock(&f->mu);
	return g;
}

struct eng_files engf_source(struct engf *f)
{
	return (struct eng_files){ cached, f };
}

static int name_only(void *ud, const char *value, char **data, size_t *len, struct fab_err *err)
{
	char path[PATH_MAX];

	*data = NULL;
	*len = 0;
	return name_path(ud, value, path, sizeof(path), err);
}

int engf_check(const char *dir, const char *chain, const char *options, struct fab_err *err)
{
	struct eng_files files = { name_only, (void *)(uintptr_t)dir };
	struct eng_chain c;

	if (eng_chain_parse_files(&c, chain, options, &files, err))
		return -1;
	eng_chain_free(&c);
	return 0;
}
