/* SPDX-License-Identifier: MIT */
/**
 * DOC: evaluation
 *
 * an_evaluate() runs the passes over one (fabric, routing): connectivity,
 * the channel dependency graph, and on request the load.
 */
#include <pthread.h>
#include <string.h>

#include "analysis/internal.h"

static int check_match(const struct fabric *f, const struct rt_routing *r, struct fab_err *err)
{
	if (!f->finalized) {
		fab_err_set(err, "the fabric is not finalized");
		return -1;
	}
	if (r->nswitches != f->nswitches || r->neps != f->neps) {
		fab_err_set(err, "the routing was made for another fabric (%u switches, %u endpoints; "
			    "this one has %u and %u)", r->nswitches, r->neps, f->nswitches, f->neps);
		return -1;
	}
	return 0;
}

/* The CDG pass, run in its own thread with @parallel. */
struct cdg_job {
	const struct an_ctx *c;
	const struct an_opts *o;
	struct an_cdg *out;
	int rc;
};

static void *cdg_thread(void *arg)
{
	struct cdg_job *j = arg;

	j->rc = an_cdg_run(j->c, j->o, j->out);
	return NULL;
}

int an_evaluate(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		struct an_report *rep, struct fab_err *err)
{
	struct an_ctx c;
	struct cdg_job job = { &c, o, &rep->cdg, 0 };
	pthread_t t;
	int rc, threaded;

	memset(rep, 0, sizeof(*rep));
	if (check_match(f, r, err))
		return -1;
	if (an_ctx_init(&c, f, r)) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	/* every pass only reads the context; each has its own scratch */
	threaded = o->parallel && pthread_create(&t, NULL, cdg_thread, &job) == 0;
	rc = an_conn_run(&c, o, &rep->conn) || (o->load && an_load_run(&c, &rep->load));
	if (threaded)
		pthread_join(t, NULL);
	else
		job.rc = an_cdg_run(&c, o, &rep->cdg);
	if (rc || job.rc) {
		fab_err_set(err, "out of memory evaluating %u endpoints", f->neps);
		an_report_free(rep);
	}
	an_ctx_fini(&c);
	return rc || job.rc ? -1 : 0;
}

void an_report_free(struct an_report *rep)
{
	an_cdg_free(&rep->cdg);
}
