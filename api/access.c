/* SPDX-License-Identifier: MIT */
/**
 * DOC: who may ask what
 *
 * Clients, tokens and rates. A client is an address; every loopback
 * address (127.0.0.0/8, ::1, and 127.x mapped into IPv6) is one client,
 * since any local user may send from any of them: a limit per address
 * would mean nothing on loopback otherwise.
 *
 * Tokens: POSTs need the administrator's token ("Authorization: Bearer
 * TOKEN"; the scheme in any case, RFC 7235); with a read token set, every
 * GET but /api/health, /api/ready and the dashboard's own files needs the
 * read token or the administrator's. Tokens are compared in constant time.
 *
 * Rates: a token bucket per client and kind (reads, authorized writes,
 * writes without the token). The token is checked before any rate is
 * charged, so requests without it can never use up the writes of a client
 * that has it. Health and readiness are never limited: they cost nothing,
 * and monitoring must get its answer.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/server_impl.h"

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The key of loopback clients: any nonzero value no hash below gives in practice. */
#define LOOPBACK_KEY 0x6c6f6f706261636bull

static uint64_t fnv(const unsigned char *b, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h | 1;
}

uint64_t api_client_key(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127))
			return LOOPBACK_KEY;
		if (IN6_IS_ADDR_V4MAPPED(a))
			return fnv(a->s6_addr + 12, 4);	/* the same client as over IPv4 */
		return fnv(a->s6_addr, 16);
	}
	{
		const struct in_addr *a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		const unsigned char *b = (const unsigned char *)&a->s_addr;

		return b[0] == 127 ? LOOPBACK_KEY : fnv(b, 4);
	}
}

/* --- rates ----------------------------------------------------------------- */

/* Take one token for @key; 0 when the client is over its rate. */
static int limiter_take(struct api_limiter *l, uint64_t key)
{
	struct api_rate_slot *s = &l->slot[key % API_RATE_SLOTS];
	int64_t now = now_us();
	int ok;

	if (!l->rate)
		return 1;
	pthread_mutex_lock(&l->mu);
	if (s->key != key)
		*s = (struct api_rate_slot){ key, l->rate, now };
	s->tokens += (double)(now - s->last_us) * l->rate / 1e6;
	if (s->tokens > l->rate)
		s->tokens = l->rate;	/* a burst of at most one second's worth */
	s->last_us = now;
	ok = s->tokens >= 1.0;
	if (ok)
		s->tokens -= 1.0;
	pthread_mutex_unlock(&l->mu);
	return ok;
}

/* --- tokens ------------------------------------------------------------------ */

void api_access_init(struct api_access *a, unsigned read_rate, unsigned write_rate)
{
	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->mu, NULL);
	for (unsigned i = 0; i < API_LIMITERS; i++)
		pthread_mutex_init(&a->lim[i].mu, NULL);
	a->lim[API_LIM_READ].rate = read_rate;
	a->lim[API_LIM_WRITE].rate = a->lim[API_LIM_UNAUTH].rate = write_rate;
}

void api_access_fini(struct api_access *a)
{
	free(a->token[0]);
	free(a->token[1]);
	pthread_mutex_destroy(&a->mu);
	for (unsigned i = 0; i < API_LIMITERS; i++)
		pthread_mutex_destroy(&a->lim[i].mu);
}

int api_access_set(struct api_access *a, int read, const char *token)
{
	char *t = token ? strdup(token) : NULL;

	if (token && !t)
		return -1;
	pthread_mutex_lock(&a->mu);
	free(a->token[read]);
	a->token[read] = t;
	pthread_mutex_unlock(&a->mu);
	return 0;
}

/* Constant-time: does @given (@n bytes) equal @want? */
static int same(const char *given, size_t n, const char *want)
{
	unsigned char diff = 0;

	if (!want || strlen(want) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(given[i] ^ want[i]);
	return !diff;
}

/*
 * The credentials @c presents: API_CRED_NONE (no Authorization header),
 * API_CRED_BAD (one that names no token), API_CRED_READ or API_CRED_ADMIN.
 */
static int credentials(struct api_access *a, struct MHD_Connection *c, int *read_needed, int *writes_on)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	size_t n;
	int cred = API_CRED_BAD;

	pthread_mutex_lock(&a->mu);
	*read_needed = a->token[1] != NULL;
	*writes_on = a->token[0] != NULL;
	if (!h) {
		cred = API_CRED_NONE;
	} else if (strncasecmp(h, "Bearer", 6) == 0 && (h[6] == ' ' || h[6] == '\t')) {
		h += 6 + strspn(h + 6, " \t");
		n = strcspn(h, " \t");
		if (h[n + strspn(h + n, " \t")] == '\0')
			cred = same(h, n, a->token[0]) ? API_CRED_ADMIN : same(h, n, a->token[1]) ? API_CRED_READ :
			       API_CRED_BAD;
	}
	pthread_mutex_unlock(&a->mu);
	return cred;
}

static void unauthorized(struct api_resp *rs, int cred, const char *what)
{
	if (cred == API_CRED_NONE)
		api_fail_new(rs, 401, "unauthorized", "missing 'Authorization: Bearer TOKEN' header (%s)", what);
	else
		api_fail_new(rs, 401, "unauthorized", "the bearer token is not valid");
}

int api_access_check(struct api_access *a, struct MHD_Connection *c, int flags, struct api_resp *rs,
		     int *admin)
{
	uint64_t key = api_client_key(c);
	int read_needed, writes_on, cred = credentials(a, c, &read_needed, &writes_on);
	int kind = API_LIM_READ;

	*admin = cred == API_CRED_ADMIN;
	if (flags & API_WRITE) {
		if (!writes_on) {
			api_fail_new(rs, 403, "writes_disabled", "no token_file is configured: POST requests are refused");
			return 0;
		}
		kind = cred == API_CRED_ADMIN ? API_LIM_WRITE : API_LIM_UNAUTH;
		if (kind == API_LIM_UNAUTH) {
			if (!limiter_take(&a->lim[kind], key))
				api_fail_new(rs, 429, "rate_limited", "too many unauthorized requests from this "
					     "client; slow down");
			else
				unauthorized(rs, cred, "POST needs the administrator's token");
			return 0;
		}
	} else if (!(flags & API_OPEN) && read_needed && cred != API_CRED_ADMIN && cred != API_CRED_READ) {
		if (!limiter_take(&a->lim[API_LIM_UNAUTH], key))
			api_fail_new(rs, 429, "rate_limited", "too many unauthorized requests from this client; "
				     "slow down");
		else
			unauthorized(rs, cred, "reads need the read token");
		return 0;
	}
	if (!(flags & API_OPEN) && !limiter_take(&a->lim[kind], key)) {
		api_fail_new(rs, 429, "rate_limited", "too many requests from this client; slow down");
		return 0;
	}
	return 1;
}
