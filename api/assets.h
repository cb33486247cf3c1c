/* SPDX-License-Identifier: MIT */
/**
 * DOC: embedded files
 *
 * The files fabrouted serves as they are, compiled in at build time by
 * scripts/embed-assets.sh: the dashboard (web/) and the OpenAPI document
 * (doc/openapi.json). Serving them from memory means the daemon always
 * serves the files it was built with, reads nothing from the disk at
 * request time and cannot be led outside them by a path.
 */
#ifndef FABROUTE_API_ASSETS_H
#define FABROUTE_API_ASSETS_H

#include <stddef.h>

/**
 * struct api_asset - one embedded file
 * @path: its URL path ("/index.html")
 * @ctype: its Content-Type
 * @etag: a strong ETag from its content, quotes included
 */
struct api_asset {
	const char *path;
	const char *ctype;
	const char *etag;
	const unsigned char *data;
	size_t len;
};

extern const struct api_asset api_assets[];
extern const unsigned api_nassets;

/** api_asset_find() - the file served at @path ("/" is "/index.html"), or NULL. */
const struct api_asset *api_asset_find(const char *path);

#endif
