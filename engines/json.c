/* SPDX-License-Identifier: MIT */
/**
 * DOC: engines as JSON
 *
 * The options of an engine with their types, as `fabroute engines --json`
 * and GET /api/engines show them.
 */
#include "engines/engine.h"

static const char *const opt_types[] = {
	[ENG_OPT_BOOL] = "bool", [ENG_OPT_INT] = "integer", [ENG_OPT_ENUM] = "enum",
	[ENG_OPT_LIST] = "list", [ENG_OPT_FILE] = "file",
};

static json_t *option_json(const struct eng_opt *p)
{
	char buf[48];
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", p->name, "type",
			      opt_types[p->type], "values", eng_opt_type_text(p, buf, sizeof(buf)),
			      "default", p->defval, "help", p->help);

	if (o && p->type == ENG_OPT_INT) {
		json_object_set_new(o, "min", json_integer(p->min));
		json_object_set_new(o, "max", json_integer(p->max));
	}
	return o;
}

json_t *eng_options_json(const struct engine *e)
{
	json_t *a = json_array();

	for (const struct eng_opt *p = e->options; a && p && p->name; p++)
		json_array_append_new(a, option_json(p));
	return a;
}
