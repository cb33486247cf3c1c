-- wrk script for bench/api.sh: GET /api/route over many different pairs of
-- the built-in 648-port fat tree (gen:ft648), so that no single pair (and
-- no single cache line of the LFTs) is measured.
--
-- LIDs:  1..36 leaf-00..leaf-35 (switch port 0), 37..54 spine-00..spine-17,
--        55..702 node-000..node-647.
-- Each endpoint is written as a decimal LID, a hex LID ("0x2bc" or "0X2BC")
-- or a node description, in turn, so the three parsers are exercised.
--
-- The pair list is the same for every thread (a fixed pseudo-random
-- sequence, src != dst); each thread starts at a different offset. The
-- requests are formatted once, in init(), so that wrk's own cost per
-- request stays small (it shares the cores with the daemon).
--
-- Environment:
--   ROUTE_PAIRS  number of pairs (default 8192)
--   ROUTE_DUMP   when set, thread 1 writes the request paths to this file
--                (one a line) so that bench/api.sh can check them all.

local NLIDS = 702
local npairs = tonumber(os.getenv("ROUTE_PAIRS") or "") or 8192

local function name(lid, style)
	if style == 0 then
		return tostring(lid)
	elseif style == 1 then
		return string.format("0x%x", lid)
	elseif style == 2 then
		return string.format("0X%X", lid)
	elseif lid <= 36 then
		return string.format("leaf-%02d", lid - 1)
	elseif lid <= 54 then
		return string.format("spine-%02d", lid - 37)
	else
		return string.format("node-%03d", lid - 55)
	end
end

-- a 31-bit LCG: the same sequence in every thread and every run
local seed = 12345
local function rnd(n)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return math.floor(seed / 65536) % n
end

local paths = {}
for i = 1, npairs do
	local s = rnd(NLIDS) + 1
	local d = rnd(NLIDS - 1) + 1
	if d >= s then d = d + 1 end
	-- styles: 0 decimal, 1/2 hex, 3 description; descriptions twice as
	-- often as each hex form since they are the common case
	local st = { 0, 1, 3, 2, 3, 0 }
	local a = st[(i % 6) + 1]
	local b = st[((i * 5 + 2) % 6) + 1]
	paths[i] = "/api/route?src=" .. name(s, a) .. "&dst=" .. name(d, b)
end

local threads = 0
function setup(thread)
	threads = threads + 1
	thread:set("id", threads)
end

local reqs = {}
local pos
function init(args)
	local tid = id or 1
	for i = 1, #paths do
		reqs[i] = wrk.format("GET", paths[i])
	end
	pos = ((tid - 1) * 7919) % #reqs
	local dump = os.getenv("ROUTE_DUMP")
	if dump and dump ~= "" and tid == 1 then
		local f = assert(io.open(dump, "w"))
		for i = 1, #paths do
			f:write(paths[i], "\n")
		end
		f:close()
	end
end

function request()
	pos = pos + 1
	if pos > #reqs then pos = 1 end
	return reqs[pos]
end
