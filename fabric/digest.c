/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing digest (rt_digest())
 *
 * One SHA-256 over what a routing programs into a subnet, so that two
 * nodes (two subnet managers, a daemon and `fabroute compute`, a routing
 * and its stored snapshot) can tell with one string whether they hold the
 * same tables. It is taken in the fabric's canonical order (nodes by GUID,
 * fabric/canon.c), every integer big-endian, and covers:
 *
 *  1. a version tag ("fabroute-routing-digest/1");
 *  2. every endpoint as fabric->eps lists them (switches' port 0 by node
 *     GUID, then CA and router ports): port GUID (8 bytes), base LID (2),
 *     LMC (1);
 *  3. every switch's LFT: node GUID (8), the count n of entries up to the
 *     last LID it routes (4), and those n entries (LIDs past n route
 *     nowhere, so tables of different lengths that route alike hash alike);
 *  4. every switch whose SL2VL table differs from the default mapping
 *     (VL = SL mod the switch's data VLs): node GUID (8), its port count
 *     (1), the table ((ports + 1)^2 x 16 bytes, in port, out port, SL);
 *  5. every source endpoint that uses an SL or a DLID offset other than 0
 *     towards some endpoint: its port GUID (8), which of its two rows hold
 *     something other than 0 (1 byte: 1 path SLs, 2 DLID offsets, 3 both),
 *     and those rows (one byte per destination endpoint each).
 *
 * Descriptions, link widths and speeds, the engine's name and notes do
 * not enter: the digest is the routing, not how it was made.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "fabric/routing.h"

static const char digest_tag[] = "fabroute-routing-digest/1";

static void put_be(EVP_MD_CTX *c, uint64_t v, unsigned bytes)
{
	uint8_t b[8];

	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	EVP_DigestUpdate(c, b, bytes);
}

static void put_lids(EVP_MD_CTX *c, const struct fabric *f)
{
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);

		put_be(c, p->guid, 8);
		put_be(c, p->lid, 2);
		put_be(c, p->lmc, 1);
	}
}

static void put_lfts(EVP_MD_CTX *c, const struct fabric *f, const struct rt_routing *r)
{
	for (uint32_t s = 0; s < r->nswitches; s++) {
		const uint8_t *t = rt_lft(r, s);
		uint32_t n = r->lft_len;

		while (n && t[n - 1] == RT_NO_PORT)
			n--;
		put_be(c, f->nodes[f->switches[s]].guid, 8);
		put_be(c, n, 4);
		EVP_DigestUpdate(c, t, n);
	}
}

static void put_sl2vl(EVP_MD_CTX *c, const struct fabric *f, const struct rt_routing *r)
{
	for (uint32_t s = 0; s < r->nswitches; s++) {
		const struct fab_node *n = &f->nodes[f->switches[s]];
		size_t dim = n->nports + 1u;

		if (!rt_sl2vl_custom(r, f, s))
			continue;
		put_be(c, n->guid, 8);
		put_be(c, n->nports, 1);
		EVP_DigestUpdate(c, r->sl2vl[s], dim * dim * RT_SLS);
	}
}

static int row_used(const uint8_t *row, uint32_t n)
{
	uint8_t any = 0;

	for (uint32_t i = 0; row && i < n; i++)
		any |= row[i];
	return any != 0;
}

static void put_pairs(EVP_MD_CTX *c, const struct fabric *f, const struct rt_routing *r)
{
	size_t n = r->neps;

	for (uint32_t s = 0; s < r->neps && (r->path_sl || r->dlid_off); s++) {
		const uint8_t *sl = r->path_sl ? r->path_sl + s * n : NULL;
		const uint8_t *off = r->dlid_off ? r->dlid_off + s * n : NULL;
		unsigned used = (unsigned)row_used(sl, r->neps) | (unsigned)row_used(off, r->neps) << 1;

		if (!used)
			continue;
		put_be(c, fab_port(f, f->eps[s].node, f->eps[s].port)->guid, 8);
		put_be(c, used, 1);
		if (used & 1)
			EVP_DigestUpdate(c, sl, n);
		if (used & 2)
			EVP_DigestUpdate(c, off, n);
	}
}

int rt_digest(const struct fabric *f, const struct rt_routing *r, char out[RT_DIGEST_HEX],
	      struct fab_err *err)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	out[0] = '\0';
	if (r->nswitches != f->nswitches || r->neps != f->neps) {
		fab_err_set(err, "digest: the routing covers %u switches and %u endpoints, the fabric "
			    "has %u and %u", r->nswitches, r->neps, f->nswitches, f->neps);
		EVP_MD_CTX_free(c);
		return -1;
	}
	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
		fab_err_set(err, "digest: SHA-256 is not available");
		EVP_MD_CTX_free(c);
		return -1;
	}
	EVP_DigestUpdate(c, digest_tag, sizeof(digest_tag));
	put_lids(c, f);
	put_lfts(c, f, r);
	put_sl2vl(c, f, r);
	put_pairs(c, f, r);
	if (!EVP_DigestFinal_ex(c, md, &len) || len != 32) {
		fab_err_set(err, "digest: SHA-256 failed");
		EVP_MD_CTX_free(c);
		return -1;
	}
	EVP_MD_CTX_free(c);
	for (unsigned i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}
