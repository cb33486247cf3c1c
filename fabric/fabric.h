/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabric model
 *
 * The physical graph of one InfiniBand subnet: nodes (channel adapters,
 * switches, routers), their ports, the links between ports, and the LIDs
 * (base LID and LMC per port) that address them.
 *
 * A fabric is built in two steps. Parsers and generators call
 * fab_new(), fab_node_add() and fab_link_add(); fab_finalize() then puts
 * the nodes in their canonical order (ascending node GUID), checks the
 * whole graph and builds the lookup indexes, so that the same graph gives
 * the same model whatever order its records came in. After fab_finalize() the
 * fabric is read-only for everybody but the LID assignment
 * (fab_lids_assign()), and every lookup below is O(1).
 *
 * Memory (x86_64): 40 bytes per node, 24 bytes per port slot (every node
 * has nports + 1 slots, slot 0 being a switch's management port), 12 bytes
 * per endpoint, 4 bytes per unicast LID for the LID index (192 KiB), and
 * about 32 bytes per node and per port GUID in the hash indexes. A
 * 5184-CA / 864-switch fat tree takes about 2.5 MiB.
 *
 * Nothing here does I/O or keeps global state.
 */
#ifndef FABROUTE_FABRIC_H
#define FABROUTE_FABRIC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_NONE UINT32_MAX
/** Highest unicast LID (0xBFFF); 0 is reserved. */
#define FAB_LID_UCAST_MAX 0xBFFFu
/** Most physical ports a node may have (255 means "no port" in an LFT). */
#define FAB_PORTS_MAX 254u
/** Longest node description kept (IB NodeDescription is 64 bytes). */
#define FAB_DESC_MAX 64u
/** Largest LMC (2^7 = 128 LIDs per port). */
#define FAB_LMC_MAX 7u

enum fab_node_type {
	FAB_CA = 1,
	FAB_SWITCH = 2,
	FAB_ROUTER = 3,
};

/* IB PortInfo encodings: LinkWidthActive and LinkSpeedActive/Ext. */
enum fab_width {
	FAB_W_1X = 1, FAB_W_4X = 2, FAB_W_8X = 4, FAB_W_12X = 8, FAB_W_2X = 16,
};
enum fab_speed {
	FAB_S_SDR = 1, FAB_S_DDR = 2, FAB_S_QDR = 4,
	FAB_S_FDR10 = 8, FAB_S_FDR = 16, FAB_S_EDR = 32, FAB_S_HDR = 64,
	FAB_S_NDR = 128, FAB_S_XDR = 256,
};
enum fab_phys_state { FAB_PHYS_POLLING = 2, FAB_PHYS_DISABLED = 3, FAB_PHYS_LINKUP = 5 };
enum fab_log_state { FAB_LOG_DOWN = 1, FAB_LOG_INIT = 2, FAB_LOG_ARMED = 3, FAB_LOG_ACTIVE = 4 };

/**
 * struct fab_port - one port slot (24 bytes)
 * @guid: port GUID; a switch's ports all carry the switch's node GUID
 * @peer: node index at the other end of the link, FAB_NONE when unlinked
 * @lid: base LID; set on CA and router ports and on a switch's port 0
 * @peer_port: port number at the other end
 * @lmc: LID mask control: the port owns LIDs lid .. lid + 2^lmc - 1
 * @width: enum fab_width, 0 when unknown
 * @speed: enum fab_speed, 0 when unknown
 * @phys: enum fab_phys_state
 * @state: enum fab_log_state
 */
struct fab_port {
	uint64_t guid;
	uint32_t peer;
	uint16_t lid;
	uint16_t speed;
	uint8_t peer_port;
	uint8_t lmc;
	uint8_t width;
	uint8_t phys;
	uint8_t state;
};

/**
 * struct fab_node - one node (40 bytes)
 * @guid: node GUID, unique in the fabric
 * @sysimg_guid: system image GUID (0 when unknown)
 * @vendor_id: IEEE vendor id (0 when unknown)
 * @desc: offset of the node description in fabric->strings
 * @port0: index in fabric->ports of this node's port 0; port p is at port0 + p
 * @swidx: position in fabric->switches, FAB_NONE for CAs and routers
 * @device_id: device id (0 when unknown)
 * @type: enum fab_node_type
 * @nports: physical ports, numbered 1..nports
 * @vl_cap: data VLs the node's ports support (1, 2, 4, 8 or 15)
 */
struct fab_node {
	uint64_t guid;
	uint64_t sysimg_guid;
	uint32_t vendor_id;
	uint32_t desc;
	uint32_t port0;
	uint32_t swidx;
	uint16_t device_id;
	uint8_t type;
	uint8_t nports;
	uint8_t vl_cap;
};

/**
 * struct fab_ep - an endpoint: a port that owns LIDs and sends or receives
 * traffic: a linked CA or router port, or a switch's port 0.
 */
struct fab_ep {
	uint32_t node;
	uint8_t port;
};

struct fab_index;

/**
 * struct fabric - the subnet
 * @nodes: all nodes: in the order they were added until fab_finalize(),
 *         then by ascending node GUID
 * @ports: port slots of all nodes (see struct fab_node.port0)
 * @switches: node indexes of the switches, in node order
 * @eps: endpoints: switches' port 0 first (in switch order), then linked
 *       CA and router ports (in node order, by port number)
 * @strings: node descriptions, NUL-terminated, back to back
 * @lid_top: highest LID owned by any port (0 when none is assigned)
 * @sm_node: node hosting the subnet manager's port, FAB_NONE when unknown
 * @sm_port: that port's number
 * @idx: lookup indexes, private to fabric/
 */
struct fabric {
	struct fab_node *nodes;
	struct fab_port *ports;
	uint32_t *switches;
	struct fab_ep *eps;
	char *strings;
	uint32_t nnodes, nports, nswitches, neps;
	uint32_t nodes_cap, ports_cap;
	size_t strings_len, strings_cap;
	uint32_t nlinks;
	uint32_t lid_top;
	uint32_t sm_node;
	uint8_t sm_port;
	int finalized;
	struct fab_index *idx;
};

/**
 * struct fab_err - an error message for the user
 *
 * Parsers write "FILE:LINE: what was expected, what was found"; other
 * functions write what failed and why. Empty when nothing failed.
 */
struct fab_err {
	char msg[512];
};

void fab_err_set(struct fab_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fab_err_vset(struct fab_err *err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* --- building --------------------------------------------------------- */

/** fab_new() - an empty fabric, or NULL when out of memory. */
struct fabric *fab_new(void);
void fab_free(struct fabric *f);

/**
 * struct fab_node_info - what fab_node_add() needs to create a node
 *
 * Ports get GUIDs as follows unless fab_port_set_guid() changes them: a
 * switch's ports all carry the node GUID; CA and router port p carries
 * node GUID + p (the convention of ibsim and of most adapters).
 */
struct fab_node_info {
	enum fab_node_type type;
	uint64_t guid;
	uint64_t sysimg_guid;
	uint32_t vendor_id;
	uint16_t device_id;
	unsigned nports;
	unsigned vl_cap;	/* 0 means 4 (the usual VLCap of IB devices) */
	const char *desc;	/* NULL or "" makes a description from the GUID */
};

/**
 * fab_node_add() - add a node with all its ports unlinked
 * Return: the new node's index, or FAB_NONE with @err set (duplicate node
 * GUID, bad port count, bad type, out of memory).
 */
uint32_t fab_node_add(struct fabric *f, const struct fab_node_info *info,
		      struct fab_err *err);

/** fab_port_set_guid() - give a CA or router port its own GUID. */
void fab_port_set_guid(struct fabric *f, uint32_t node, unsigned port, uint64_t guid);

/**
 * fab_link_add() - link port @pa of node @a with port @pb of node @b
 *
 * Declaring the same link again (from either end) is accepted, since
 * topology files list every link from both of its ends. A port that is
 * already linked elsewhere, a port number of 0 or beyond the node's port
 * count, or a port linked to itself are errors.
 * Return: 0, or -1 with @err set.
 */
int fab_link_add(struct fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb,
		 struct fab_err *err);

/** fab_link_remove() - unlink the port and its peer; no-op when unlinked. */
void fab_link_remove(struct fabric *f, uint32_t node, unsigned port);
/**
 * fab_switch_link_remove() - fab_link_remove() of a link between two
 * switches of finalized @f, which stays finalized: its node order, lists
 * and index do not depend on such links (no fab_finalize() needed).
 * Return: 0, or -1 when @f is not finalized or the port does not lead from
 * a switch to a switch (nothing is done then).
 */
int fab_switch_link_remove(struct fabric *f, uint32_t node, unsigned port);

/**
 * fab_sw_peer() - switch index at the other end of port @p of switch @sw,
 * FAB_NONE when the port does not exist, leads nowhere or to a CA.
 */
uint32_t fab_sw_peer(const struct fabric *f, uint32_t sw, unsigned p);

/**
 * fab_sw_neighbours() - the neighbour switches of every switch, sorted and
 * distinct, itself left out (CSR: those of switch s are
 * @adj[@off[s]..@off[s + 1]); both malloc'd).
 * Return: 0, or -1 when out of memory.
 */
int fab_sw_neighbours(const struct fabric *f, uint32_t **off, uint32_t **adj);

/**
 * fab_finalize() - order the nodes, check the graph and build the indexes
 *
 * Puts the nodes in ascending node GUID order (the canonical order), so
 * node indexes fab_node_add() returned no longer hold after it; look nodes
 * up again by GUID (fab_node_by_guid()) unless they were added in that
 * order. Then finds the endpoints, indexes GUIDs, descriptions and LIDs, and checks
 * LIDs: a base LID must be a multiple of 2^LMC and LID ranges must not
 * overlap. Ports without a LID (0) are allowed; fab_lids_assign() fills
 * them. May be called again after links or LIDs changed.
 * Return: 0, or -1 with @err set.
 */
int fab_finalize(struct fabric *f, struct fab_err *err);

/**
 * fab_reorder() - move the nodes of @f (with their port slots, the links
 * and the SM's node following) so that node @order[i] becomes node i;
 * @order is a permutation of 0 .. nnodes - 1. The fabric is no longer
 * finalized, and fab_finalize() puts it back in canonical order: what a
 * test or a benchmark uses to hand fab_finalize() the same graph in
 * another order. Return: 0, or -1 with @err set (out of memory).
 */
int fab_reorder(struct fabric *f, const uint32_t *order, struct fab_err *err);

/**
 * fab_routes_alike() - @a and @b are the same input to a routing: both
 * finalized, and equal in everything the evaluation reads and every engine
 * reads to route (nodes: GUID, system image GUID, type, ports, VL capacity;
 * ports: GUID, link, LID, LMC). Widths, speeds, port states, descriptions
 * and the SM's port do not enter. Every engine being canonical, a routing
 * made for @a is one the engine would make for @b with the same settings:
 * the same, or (sftree, whose subtree root avoids the SM's leaf) one as
 * valid, made for the SM's other place.
 */
int fab_routes_alike(const struct fabric *a, const struct fabric *b);

/* --- reading ---------------------------------------------------------- */

static inline struct fab_port *fab_port(const struct fabric *f, uint32_t node, unsigned port)
{
	return &f->ports[f->nodes[node].port0 + port];
}

static inline const char *fab_desc(const struct fabric *f, uint32_t node)
{
	return f->strings + f->nodes[node].desc;
}

/** fab_port_linked() - the port has a peer. */
static inline int fab_port_linked(const struct fabric *f, uint32_t node, unsigned port)
{
	return fab_port(f, node, port)->peer != FAB_NONE;
}

/** fab_ep_lid() - base LID of endpoint @ep (switch port 0 or CA port). */
static inline uint16_t fab_ep_lid(const struct fabric *f, uint32_t ep)
{
	return fab_port(f, f->eps[ep].node, f->eps[ep].port)->lid;
}

static inline uint8_t fab_ep_lmc(const struct fabric *f, uint32_t ep)
{
	return fab_port(f, f->eps[ep].node, f->eps[ep].port)->lmc;
}

const char *fab_node_type_name(enum fab_node_type t);	/* "CA", "SW", "RT" */

/** Lookups: FAB_NONE when nothing matches. All O(1). */
uint32_t fab_node_by_guid(const struct fabric *f, uint64_t guid);
/** fab_ep_by_port_guid() - endpoint owning a port GUID; for a switch, its port 0. */
uint32_t fab_ep_by_port_guid(const struct fabric *f, uint64_t guid);
/** fab_ep_by_lid() - endpoint owning @lid, honouring each port's LMC range. */
uint32_t fab_ep_by_lid(const struct fabric *f, unsigned lid);
/** fab_node_by_desc() - first node with this description; *@count gets how many share it. */
uint32_t fab_node_by_desc(const struct fabric *f, const char *desc, unsigned *count);

/* --- naming nodes (fabric/names.c) -------------------------------------- */

/** Room fab_node_label() needs: a description, " (0x", 16 digits, ")". */
#define FAB_LABEL_MAX (FAB_DESC_MAX + 24)

/**
 * fab_node_resolve() - the node a user names with @text: its description,
 * else "0x" and its node GUID or the GUID of one of its ports
 * @what: put before the message, e.g. "option roots: " (may be NULL)
 * Return: the node, or FAB_NONE with @err saying why: no such node, or a
 * description several nodes share (their GUIDs listed).
 */
uint32_t fab_node_resolve(const struct fabric *f, const char *text, const char *what,
			  struct fab_err *err);
/** fab_node_desc_count() - how many nodes share @node's description (1: unique). */
unsigned fab_node_desc_count(const struct fabric *f, uint32_t node);
/**
 * fab_node_label() - how reports name @node: its description when no other
 * node has it, else "DESC (0xGUID)". Return: @buf (FAB_LABEL_MAX bytes do).
 */
const char *fab_node_label(const struct fabric *f, uint32_t node, char *buf, size_t size);
/** FAB_LABEL() - fab_node_label() into a buffer that lives to the end of the caller's block. */
#define FAB_LABEL(f, node) fab_node_label((f), (node), (char[FAB_LABEL_MAX]){ 0 }, FAB_LABEL_MAX)
/**
 * fab_node_set_desc() - give @node description @desc (at most FAB_DESC_MAX
 * bytes kept); fab_finalize() again before looking nodes up by it.
 * Return: 0, or -1 when out of memory.
 */
int fab_node_set_desc(struct fabric *f, uint32_t node, const char *desc);

/** fab_ep_of_node() - endpoint of a node's port (switch: port 0, CA: @port). */
uint32_t fab_ep_of_node(const struct fabric *f, uint32_t node, unsigned port);

/**
 * fab_describe() - "N nodes (S switches, C CAs, R routers), L LIDs, K links"
 * into @out (@len bytes): how big @f is, for a log line. L counts every
 * LID of every endpoint's LMC range (LIDs not assigned yet count 0).
 *
 * Return: @out.
 */
const char *fab_describe(const struct fabric *f, char *out, size_t len);

/**
 * fab_topology_hash() - identity of the physical graph
 *
 * A 64-bit FNV-1a hash over the sorted node records (type, node GUID, port
 * count) and the sorted links (node GUID and port number of both ends).
 * LIDs, descriptions, port GUIDs, widths and speeds do not enter it: two
 * snapshots of the same cabling hash the same.
 */
uint64_t fab_topology_hash(const struct fabric *f);

/**
 * fab_subset() - copy of @f without the nodes whose @drop entry is non-zero
 *
 * Links to dropped nodes disappear; nodes left without any link are dropped
 * too (discovery would not see them). LIDs are kept. The copy is finalized.
 * Return: the copy, or NULL with @err set.
 */
struct fabric *fab_subset(const struct fabric *f, const uint8_t *drop, struct fab_err *err);

/**
 * fab_copy() - a finalized copy of the finalized fabric @f, LIDs included.
 * Return: the copy, or NULL with @err set.
 */
struct fabric *fab_copy(const struct fabric *f, struct fab_err *err);

/* --- deterministic random numbers (splitmix64; same seed, same numbers on
 * every platform) ------------------------------------------------------ */

struct fab_rng {
	uint64_t s;
};

static inline void fab_rng_seed(struct fab_rng *r, uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t fab_rng_next(struct fab_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/** fab_rng_below() - uniform integer in [0, @n), @n > 0, without modulo bias. */
static inline uint64_t fab_rng_below(struct fab_rng *r, uint64_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = fab_rng_next(r);
	while (x >= lim);
	return x % n;
}

/* --- LIDs ------------------------------------------------------------- */

/** struct fab_lid_pin - one guid2lid entry: port GUID -> base LID, LMC. */
struct fab_lid_pin {
	uint64_t guid;
	uint16_t lid;
	uint8_t lmc;
};

enum fab_lid_mode {
	FAB_LIDS_KEEP = 0,	/* keep LIDs the fabric already has, fill the rest */
	FAB_LIDS_RENEW = 1,	/* forget existing LIDs and assign all anew */
};

/**
 * fab_lids_assign() - give every endpoint a base LID and LMC
 *
 * Deterministic, in this order:
 *  1. pinned entries (a guid2lid file) whose GUID is an endpoint of the
 *     fabric, in the order given;
 *  2. with FAB_LIDS_KEEP, LIDs the fabric already carries;
 *  3. every endpoint still without a LID: switches by ascending node GUID,
 *     then CA and router ports by ascending port GUID; each takes the
 *     lowest free range of 2^lmc LIDs aligned to 2^lmc, starting at 1.
 * Endpoints without a pin or kept LID get LMC @lmc (switch port 0 always 0,
 * as the IB spec wants for base port 0). A pin that conflicts with an
 * earlier one is an error.
 * Return: 0, or -1 with @err set (LID space exhausted, conflict).
 */
int fab_lids_assign(struct fabric *f, const struct fab_lid_pin *pins, size_t npins,
		    enum fab_lid_mode mode, unsigned lmc, struct fab_err *err);

/**
 * fab_lmc_max() - the largest LMC of any endpoint: 0 when every port owns
 * one LID, else some source must know which of a port's LIDs to use
 */
unsigned fab_lmc_max(const struct fabric *f);

/* --- shape: what kind of topology this is (fabric/shape.c) ----------- */

#define FAB_LEVELS_MAX 16

/**
 * struct fab_shape - what `fabroute show` reports about the structure
 * @level: per switch (in switch order): 1 for switches with CAs attached,
 *         then BFS distance + 1 through switches; 0 when unreachable
 * @nlevels: highest level
 * @per_level: switch count per level (index 1..nlevels)
 * @hlinks: switch-to-switch links between switches of the same level
 * @is_tree: every switch-to-switch link joins adjacent levels or is
 *           horizontal, and there are at least two levels
 * @group: per switch, its dragonfly group (FAB_NONE when not a dragonfly)
 * @ngroups, @group_size: dragonfly groups found (0 when not a dragonfly)
 * @components: connected components of the whole graph
 */
struct fab_shape {
	uint32_t *level;
	uint32_t nlevels;
	uint32_t per_level[FAB_LEVELS_MAX + 1];
	uint32_t hlinks;
	int is_tree;
	uint32_t *group;
	uint32_t ngroups, group_size;
	uint32_t components;
};

int fab_shape(const struct fabric *f, struct fab_shape *s, struct fab_err *err);
void fab_shape_free(struct fab_shape *s);

/**
 * fab_components() - the connected components of @f's whole graph
 * @comp: @f->nnodes entries, set to a node of each node's component (the
 *        same for every node of one component)
 * Return: the number of components.
 */
uint32_t fab_components(const struct fabric *f, uint32_t *comp);

/**
 * fab_grow() - make room for @need elements of @elem bytes in *@arr, whose
 * capacity is *@cap (doubling from 64); what the model and the topology
 * builders grow their arrays with. Return: 0, or -1 when out of memory.
 */
int fab_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);

#endif
