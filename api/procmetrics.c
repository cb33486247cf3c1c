/* SPDX-License-Identifier: MIT */
/**
 * DOC: /metrics, the process's part
 *
 * fabroute_build_info and the process metrics Prometheus client libraries
 * export under the same names (process_cpu_seconds_total,
 * process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_open_fds, process_max_fds, process_start_time_seconds), read
 * from getrusage(2), getrlimit(2) and /proc/self; and the API's request
 * duration histogram.
 */
#include <dirent.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "api/server_impl.h"

/* Upper bounds of the request duration histogram's buckets, in seconds. */
static const double lat_bounds[API_LAT_BUCKETS] = {
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
};

void api_latency_observe(struct api_latency *l, int64_t us)
{
	size_t b = 0;

	while (b < API_LAT_BUCKETS && (double)us / 1e6 > lat_bounds[b])
		b++;
	__atomic_add_fetch(&l->count[b], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&l->sum_us, (uint64_t)(us > 0 ? us : 0), __ATOMIC_RELAXED);
}

void api_latency_write(struct api_latency *l, FILE *o)
{
	uint64_t cum = 0;

	fputs("# HELP fabroute_api_request_duration_seconds Time from a request's headers to its answer.\n"
	      "# TYPE fabroute_api_request_duration_seconds histogram\n", o);
	for (size_t b = 0; b <= API_LAT_BUCKETS; b++) {
		cum += __atomic_load_n(&l->count[b], __ATOMIC_RELAXED);
		if (b < API_LAT_BUCKETS)
			fprintf(o, "fabroute_api_request_duration_seconds_bucket{le=\"%g\"} %llu\n", lat_bounds[b],
				(unsigned long long)cum);
		else
			fprintf(o, "fabroute_api_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
				(unsigned long long)cum);
	}
	fputs("fabroute_api_request_duration_seconds_sum ", o);
	api_metric_value(o, (double)__atomic_load_n(&l->sum_us, __ATOMIC_RELAXED) / 1e6);
	fprintf(o, "\nfabroute_api_request_duration_seconds_count %llu\n", (unsigned long long)cum);
}

static unsigned open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n ? n - 1 : 0;	/* not the directory's own descriptor */
}

/* Virtual and resident size in bytes from /proc/self/statm; 0 when unreadable. */
static void memory(double *vsz, double *rss)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long long size = 0, res = 0;
	long page = sysconf(_SC_PAGESIZE);

	if (f) {
		if (fscanf(f, "%llu %llu", &size, &res) != 2)
			size = res = 0;
		fclose(f);
	}
	*vsz = (double)size * (double)page;
	*rss = (double)res * (double)page;
}

void api_process_metrics(FILE *o, double start_s)
{
	struct rusage ru;
	struct rlimit rl;
	double vsz, rss, cpu = 0;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	memory(&vsz, &rss);
	fprintf(o, "# HELP fabroute_build_info The fabroute version this daemon was built from.\n"
		"# TYPE fabroute_build_info gauge\nfabroute_build_info{version=\"%s\"} 1\n", PACKAGE_VERSION);
	api_metric(o, "counter", "process_cpu_seconds_total", "User and system CPU time spent, in seconds.", cpu);
	api_metric(o, "gauge", "process_resident_memory_bytes", "Resident memory size in bytes.", rss);
	api_metric(o, "gauge", "process_virtual_memory_bytes", "Virtual memory size in bytes.", vsz);
	api_metric(o, "gauge", "process_open_fds", "Open file descriptors.", open_fds());
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		api_metric(o, "gauge", "process_max_fds", "Most open file descriptors allowed.", (double)rl.rlim_cur);
	api_metric(o, "gauge", "process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.",
		   start_s);
}
