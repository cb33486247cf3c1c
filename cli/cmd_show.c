/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute show
 *
 * Summarises a topology: node and link counts by type, switch radixes,
 * LIDs, and the shape (tree levels and roots, dragonfly groups).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fputs("Usage: fabroute show [OPTIONS] FILE\n"
	      "\n"
	      "Summarise a topology (FILE '-' reads standard input): nodes and links by\n"
	      "type, switch radixes, LIDs, tree levels and roots, dragonfly groups.\n"
	      "Ports without a LID get one by the default assignment (see fabroute(1)).\n"
	      "\n"
	      "Options:\n"
	      "      --from FMT        input format: auto (default), ibnetdiscover, ibsim,\n"
	      "                        opensm-subnet (opensm-subnet.lst)\n"
	      "      --json            print JSON instead of text\n"
	      CLI_LIDS_HELP
	      CLI_INPUT_HELP
	      "  -h, --help            show this help\n",
	      out);
}

struct summary {
	uint32_t ca, sw, rt;
	uint32_t sw_sw, sw_ca, ca_ca;
	uint32_t lids_file, lid_min, lid_max;
	uint32_t lmc_mask;		/* bit i: some port has LMC i */
	uint32_t radix[FAB_PORTS_MAX + 1];
	struct fab_shape shape;
};

static void count_nodes(const struct fabric *f, struct summary *s)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct fab_node *n = &f->nodes[i];

		s->ca += n->type == FAB_CA;
		s->rt += n->type == FAB_ROUTER;
		if (n->type == FAB_SWITCH) {
			s->sw++;
			s->radix[n->nports]++;
		}
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);
			int a, b;

			if (x->peer == FAB_NONE || x->peer < i || (x->peer == i && x->peer_port < p))
				continue;
			a = n->type == FAB_SWITCH;
			b = f->nodes[x->peer].type == FAB_SWITCH;
			if (a && b)
				s->sw_sw++;
			else if (a || b)
				s->sw_ca++;
			else
				s->ca_ca++;
		}
	}
}

static void count_lids(const struct fabric *f, struct summary *s)
{
	s->lid_min = UINT32_MAX;
	for (uint32_t e = 0; e < f->neps; e++) {
		uint16_t lid = fab_ep_lid(f, e);

		if (!lid)
			continue;
		s->lmc_mask |= 1u << fab_ep_lmc(f, e);
		if (lid < s->lid_min)
			s->lid_min = lid;
		if (lid > s->lid_max)
			s->lid_max = lid;
	}
	if (s->lid_min == UINT32_MAX)
		s->lid_min = 0;
}

static const char *shape_name(const struct fab_shape *sh)
{
	if (sh->is_tree)
		return "tree";
	if (sh->ngroups)
		return "dragonfly";
	return "irregular";
}

static void print_roots(const struct fabric *f, const struct fab_shape *sh)
{
	uint32_t shown = 0;

	printf("roots:      ");
	for (uint32_t s = 0; s < f->nswitches; s++) {
		if (sh->level[s] != sh->nlevels)
			continue;
		if (shown++ < 8)
			printf("%s\"%s\"", shown > 1 ? ", " : "", FAB_LABEL(f, f->switches[s]));
	}
	if (shown > 8)
		printf(", ... (%u in all)", shown);
	putchar('\n');
}

static void print_shape(const struct fabric *f, const struct summary *s)
{
	const struct fab_shape *sh = &s->shape;

	printf("shape:      %s", shape_name(sh));
	if (sh->ngroups)
		printf(", %u groups of %u switches", sh->ngroups, sh->group_size);
	printf(", %u switch level%s from the CAs up\n", sh->nlevels, sh->nlevels == 1 ? "" : "s");
	for (uint32_t l = 1; l <= sh->nlevels && l <= FAB_LEVELS_MAX; l++)
		printf("  level %-3u %u switches\n", l, sh->per_level[l]);
	if (sh->per_level[0])
		printf("  no level  %u switches (no path to a CA)\n", sh->per_level[0]);
	if (sh->hlinks)
		printf("  horizontal links (same level): %u\n", sh->hlinks);
	if (sh->is_tree)
		print_roots(f, sh);
}

static void print_text(const char *name, const char *fmt, const struct fabric *f,
		       const struct summary *s)
{
	printf("fabric:     %s (%s)\n", name, fmt);
	printf("hash:       %016" PRIx64 "\n", fab_topology_hash(f));
	printf("nodes:      %u (%u switches, %u CAs, %u routers)\n", f->nnodes, s->sw, s->ca, s->rt);
	printf("links:      %u (%u switch-switch, %u switch-CA/router, %u CA-CA)\n", f->nlinks,
	       s->sw_sw, s->sw_ca, s->ca_ca);
	printf("radix:      %s", s->sw ? "" : "no switches");
	for (unsigned r = 1, first = 1; r <= FAB_PORTS_MAX; r++)
		if (s->radix[r]) {
			printf("%s%u switches of %u ports", first ? "" : ", ", s->radix[r], r);
			first = 0;
		}
	putchar('\n');
	printf("endpoints:  %u (switch port 0 and linked CA/router ports)\n", f->neps);
	printf("LIDs:       %u..%u, top %u, LMC", s->lid_min, s->lid_max, f->lid_top);
	for (unsigned l = 0; l <= FAB_LMC_MAX; l++)
		if (s->lmc_mask & (1u << l))
			printf(" %u", l);
	printf(" (%u from the file, %u assigned)\n", s->lids_file, f->neps - s->lids_file);
	print_shape(f, s);
	printf("components: %u\n", s->shape.components);
	if (f->sm_node != FAB_NONE)
		printf("SM:         \"%s\" port %u\n", FAB_LABEL(f, f->sm_node), f->sm_port);
}

static json_t *shape_json(const struct fabric *f, const struct fab_shape *sh)
{
	json_t *levels = json_array(), *roots = json_array();

	for (uint32_t l = 1; l <= sh->nlevels && l <= FAB_LEVELS_MAX; l++)
		json_array_append_new(levels, json_integer(sh->per_level[l]));
	for (uint32_t s = 0; sh->is_tree && s < f->nswitches; s++)
		if (sh->level[s] == sh->nlevels)
			json_array_append_new(roots, json_string(FAB_LABEL(f, f->switches[s])));
	return json_pack("{s:s, s:o, s:i, s:o, s:i, s:i, s:i}", "kind", shape_name(sh),
			 "switches_per_level", levels, "horizontal_links", (json_int_t)sh->hlinks,
			 "roots", roots, "groups", (json_int_t)sh->ngroups,
			 "group_size", (json_int_t)sh->group_size,
			 "components", (json_int_t)sh->components);
}

static int print_json(const char *name, const char *fmt, const struct fabric *f,
		      const struct summary *s)
{
	char hash[17];
	json_t *radix = json_object(), *root;
	int rc;

	snprintf(hash, sizeof(hash), "%016" PRIx64, fab_topology_hash(f));
	for (unsigned r = 1; r <= FAB_PORTS_MAX; r++)
		if (s->radix[r]) {
			char k[8];

			snprintf(k, sizeof(k), "%u", r);
			json_object_set_new(radix, k, json_integer(s->radix[r]));
		}
	root = json_pack("{s:s, s:s, s:s, s:{s:i, s:i, s:i, s:i}, s:{s:i, s:i, s:i, s:i},"
			 " s:o, s:i, s:{s:i, s:i, s:i, s:i}, s:o}",
			 "file", name, "format", fmt, "hash", hash,
			 "nodes", "total", (json_int_t)f->nnodes, "switches", (json_int_t)s->sw,
			 "cas", (json_int_t)s->ca, "routers", (json_int_t)s->rt,
			 "links", "total", (json_int_t)f->nlinks, "switch_switch", (json_int_t)s->sw_sw,
			 "switch_ca", (json_int_t)s->sw_ca, "ca_ca", (json_int_t)s->ca_ca,
			 "switch_radix", radix, "endpoints", (json_int_t)f->neps,
			 "lids", "min", (json_int_t)s->lid_min, "max", (json_int_t)s->lid_max,
			 "top", (json_int_t)f->lid_top, "from_file", (json_int_t)s->lids_file,
			 "shape", shape_json(f, &s->shape));
	if (!root)
		return CLI_FAIL;
	rc = json_dumpf(root, stdout, CLI_JSON_FLAGS) ? CLI_FAIL : CLI_OK;
	putchar('\n');
	json_decref(root);
	return rc;
}

struct show_opts {
	enum fmt_topo fmt;
	int json, help;
	struct cli_lids lids;
	struct cli_input in;
};

static int parse_args(int argc, char **argv, struct show_opts *o)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "guid2lid", required_argument, NULL, OPT_GUID2LID },
		{ "lmc", required_argument, NULL, OPT_LMC },
		{ "renew-lids", no_argument, NULL, OPT_RENEW_LIDS },
		CLI_INPUT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fmt;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h')
			o->help = 1;
		else if (c == OPT_JSON)
			o->json = 1;
		else if (c == OPT_FROM) {
			fmt = fmt_topo_from_name(optarg);
			if (fmt < 0)
				return cli_usage_err("show", "--from '%s': expected auto, ibnetdiscover, ibsim or opensm-subnet", optarg);
			o->fmt = (enum fmt_topo)fmt;
		} else if (c == ':')
			return cli_usage_err("show", "option '%s' needs a value", argv[optind - 1]);
		else if (c == '?' || (!cli_input_option(&o->in, c, optarg) &&
				      cli_lids_option(&o->lids, c, optarg) <= 0))
			return cli_usage_err("show", "bad option '%s'", argv[optind - 1]);
	}
	if (!o->help && optind != argc - 1)
		return cli_usage_err("show", "expected one topology file");
	return CLI_OK;
}

int cmd_show(int argc, char **argv)
{
	struct show_opts o = { .fmt = FMT_AUTO, .lids = { .lmc = -1 } };
	struct summary s = { 0 };
	struct fab_err err = { { 0 } };
	struct fmt_opts fo = { .warn = cli_warn, .arg = &o.in };
	struct fabric *f = NULL;
	char *buf = NULL;
	size_t len;
	int rc = parse_args(argc, argv, &o);

	if (rc || o.help) {
		if (o.help)
			usage(stdout);
		return rc;
	}
	if (fmt_read_file(argv[optind], &buf, &len, &err)) {
		cli_err("%s", err.msg);
		return CLI_INPUT;
	}
	if (o.fmt == FMT_AUTO)
		o.fmt = fmt_topo_detect(buf, len);
	fo.strict = o.in.strict;
	f = fmt_topo_parse_opts(buf, len, strcmp(argv[optind], "-") ? argv[optind] : "<stdin>",
				o.fmt, &fo, &err);
	free(buf);
	if (!f) {
		cli_err("%s", err.msg);
		return CLI_INPUT;
	}
	if (cli_input_names(f, &o.in)) {
		fab_free(f);
		return CLI_INPUT;
	}
	for (uint32_t e = 0; e < f->neps; e++)
		s.lids_file += fab_ep_lid(f, e) != 0;
	if (o.lids.renew)
		s.lids_file = 0;
	rc = cli_lids_apply(f, &o.lids);
	if (rc == CLI_OK && fab_shape(f, &s.shape, &err)) {
		cli_err("%s", err.msg);
		rc = CLI_FAIL;
	}
	if (rc == CLI_OK) {
		count_nodes(f, &s);
		count_lids(f, &s);
		if (o.json)
			rc = print_json(argv[optind], fmt_topo_name(o.fmt), f, &s);
		else
			print_text(argv[optind], fmt_topo_name(o.fmt), f, &s);
	}
	fab_shape_free(&s.shape);
	fab_free(f);
	return rc;
}
