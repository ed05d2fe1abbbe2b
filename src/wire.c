/* verbs.wire's decoder: a RoCEv2 frame is one userdata holding its bytes and
 * the offsets of its headers, found once when the frame is made; a header
 * (p.bth, p.reth, ...) is read field by field when asked, under the IBA
 * spec's names, and no Lua table is built for it. The ICRC is zlib's
 * crc32 over the masked pseudo-packet (IBA annex A17), computed when first
 * asked. Pcap files are read through libpcap, one frame at a time.
 * The ladder, the filter and the attribution are policy: lua/wire.lua. */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <pcap/pcap.h>
#include <lauxlib.h>
#include "wire.h"

#define FRAME_MT "verbs.frame"
#define HDR_MT "verbs.frame_header"
#define READER_MT "verbs.pcap_reader"
#define ROCE_PORT 4791

/* The headers a frame may have, in the order of the names table below. */
enum hdr { H_ETH, H_IP4, H_IP6, H_UDP, H_BTH, H_DETH, H_RETH, H_ATOMICETH, H_AETH, H_ATOMICACKETH, NHDR };
/* The extended headers' offsets live in frame.ext[], from H_DETH on. */
#define NEXT (NHDR - H_DETH)

/* Why a frame is not RoCEv2 (the second value of decode). */
enum why { W_OK, W_SHORT, W_NOT_IP, W_NOT_UDP, W_NOT_PORT, W_TRUNC };

struct frame {
	const uint8_t *b;      /* d[] below, or the bytes of a capture's store (user value 1) */
	double time;           /* seconds; NAN for a string given to decode */
	uint32_t caplen, len;  /* bytes here, bytes on the wire */
	uint32_t end;          /* one past the UDP payload (the ICRC's last byte) */
	uint16_t iphl, udp, bth, immdt, ieth, payload;   /* offsets; 0: absent */
	uint16_t ext[NEXT];
	uint8_t why, v6;
	int8_t icrc;           /* -1 not computed yet, 0 fails, 1 right */
	uint32_t icrc_want;
	uint8_t d[];
};

#define IPO 14   /* the IP header follows the Ethernet header */

/* The metatables, also under these registry keys: a frame is made and
 * checked per frame read, and a lookup by address is cheaper than by name. */
static const char frame_key = 'f', hdr_key = 'h';
static void make_metatables(lua_State *L);

static void set_mt(lua_State *L, const char *key)
{
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, key) == LUA_TNIL) {   /* a capture's frame before require */
		lua_pop(L, 1);
		make_metatables(L);
		lua_rawgetp(L, LUA_REGISTRYINDEX, key);
	}
	lua_setmetatable(L, -2);
}

/* The userdata at idx if its metatable is key's, else NULL. */
static void *test_mt(lua_State *L, int idx, const char *key)
{
	void *p = lua_touserdata(L, idx);
	if (!p || !lua_getmetatable(L, idx))
		return NULL;
	lua_rawgetp(L, LUA_REGISTRYINDEX, key);
	int same = lua_rawequal(L, -1, -2);
	lua_pop(L, 2);
	return same ? p : NULL;
}

static void *check_mt(lua_State *L, int idx, const char *key, const char *tname)
{
	void *p = test_mt(L, idx, key);
	if (!p)
		luaL_typeerror(L, idx, tname);
	return p;
}

static uint32_t be(const uint8_t *p, int n)
{
	uint32_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be(p, 4) << 32 | be(p + 4, 4);
}

/* Which extended headers follow the BTH: op is the operation (low 5 bits). */
static void find_headers(struct frame *f)
{
	const uint8_t *b = f->b;
	unsigned op = b[f->bth] & 0x1F, transport = b[f->bth] >> 5;
	unsigned o = f->bth + 12;
#define TAKE(slot, n) do { (slot) = o; o += (n); } while (0)
	if (transport == 3)
		TAKE(f->ext[H_DETH - H_DETH], 8);
	if (op == 6 || op == 10 || op == 11 || op == 12)
		TAKE(f->ext[H_RETH - H_DETH], 16);
	if (op == 19 || op == 20)
		TAKE(f->ext[H_ATOMICETH - H_DETH], 28);
	if (op == 13 || op == 15 || op == 16 || op == 17 || op == 18)
		TAKE(f->ext[H_AETH - H_DETH], 4);
	if (op == 18)
		TAKE(f->ext[H_ATOMICACKETH - H_DETH], 8);
	if (op == 3 || op == 5 || op == 9 || op == 11)
		TAKE(f->immdt, 4);
	if (op == 22 || op == 23)
		TAKE(f->ieth, 4);
#undef TAKE
	f->payload = o;
}

/* Finds the headers of f; f->why says what it is not. */
static void parse(struct frame *f)
{
	const uint8_t *b = f->b;
	uint32_t n = f->caplen;
	f->icrc = -1;
	if (n < IPO) {
		f->why = W_SHORT;
		return;
	}
	unsigned type = be(b + 12, 2), proto, iphl;
	if (type == 0x0800 && n >= IPO + 20) {
		iphl = (b[IPO] & 0x0F) * 4;
		proto = b[IPO + 9];
	} else if (type == 0x86DD && n >= IPO + 40) {
		iphl = 40;
		f->v6 = 1;
		proto = b[IPO + 6];
	} else {
		f->why = type == 0x0800 || type == 0x86DD ? W_TRUNC : W_NOT_IP;
		return;
	}
	if (iphl < 20 || n < IPO + iphl + 8u) {
		f->why = W_TRUNC;
		return;
	}
	f->iphl = iphl;
	if (proto != 17) {
		f->why = W_NOT_UDP;
		return;
	}
	f->udp = IPO + f->iphl;
	if (be(b + f->udp + 2, 2) != ROCE_PORT) {
		f->why = W_NOT_PORT;
		return;
	}
	f->bth = f->udp + 8;
	f->end = f->udp + be(b + f->udp + 4, 2);
	/* the UDP payload must hold a BTH and the ICRC, and the headers its
	 * opcode names must have been captured (a snaplen may cut the payload) */
	if (f->end > f->len || f->end < f->bth + 16u || n < f->bth + 12u) {
		f->why = W_TRUNC;
		return;
	}
	find_headers(f);
	if (f->payload + 4u > f->end || f->payload > n)
		f->why = W_TRUNC;
}

/* ---- the ICRC ------------------------------------------------------- */

/* The ICRC covers the IP header, UDP header, BTH and payload, with the
 * fields a router may change replaced by ones: 8 bytes of 1s for the absent
 * LRH; IPv4 TOS, TTL and checksum; IPv6 traffic class, flow label and hop
 * limit; the UDP checksum; the BTH's resv8a. */
static int icrc_check(lua_State *L, struct frame *f)
{
	if (f->icrc >= 0)
		return f->icrc;
	const char *why = NULL;
	wire_crc32_fn crc32 = wire_crc32(&why);
	if (!crc32)
		return luaL_error(L, "the ICRC is zlib's crc32, and zlib could not be loaded: %s", why);
	uint8_t h[8 + 60 + 8 + 12];
	const uint8_t *b = f->b;
	memset(h, 0xFF, 8);
	uint8_t *ip = h + 8, *udp = ip + f->iphl, *bth = udp + 8;
	memcpy(ip, b + IPO, f->iphl + 8 + 12);
	if (f->v6) {
		ip[0] |= 0x0F;
		ip[1] = ip[2] = ip[3] = 0xFF;
		ip[7] = 0xFF;
	} else {
		ip[1] = ip[8] = ip[10] = ip[11] = 0xFF;
	}
	udp[6] = udp[7] = 0xFF;
	bth[4] = 0xFF;
	unsigned long c = crc32(0, h, (unsigned)(bth + 12 - h));
	c = crc32(c, b + f->bth + 12, f->end - 4 - (f->bth + 12));
	const uint8_t *got = b + f->end - 4;   /* sent least significant byte first */
	f->icrc_want = (uint32_t)c;
	f->icrc = f->icrc_want == ((uint32_t)got[0] | got[1] << 8 | got[2] << 16 | (uint32_t)got[3] << 24);
	return f->icrc;
}

/* ---- frames ------------------------------------------------------------ */

void wire_push_frame(lua_State *L, const uint8_t *b, uint32_t caplen, uint32_t length, double time, int owner)
{
	if (owner)
		owner = lua_absindex(L, owner);
	struct frame *f = lua_newuserdatauv(L, sizeof *f + (owner ? 0 : caplen), owner ? 1 : 0);
	memset(f, 0, sizeof *f);
	if (owner) {
		f->b = b;
		lua_pushvalue(L, owner);
		lua_setiuservalue(L, -2, 1);
	} else {
		memcpy(f->d, b, caplen);
		f->b = f->d;
	}
	f->caplen = caplen;
	f->len = length;
	f->time = time;
	parse(f);
	set_mt(L, &frame_key);
}

static struct frame *to_frame(lua_State *L, int idx)
{
	return test_mt(L, idx, &frame_key);
}

/* Pushes why f is not RoCEv2 (decode's second value). */
static void push_why(lua_State *L, const struct frame *f)
{
	char s[96];
	switch (f->why) {
	case W_SHORT: lua_pushliteral(L, "shorter than an Ethernet header"); return;
	case W_NOT_IP:
		snprintf(s, sizeof s, "ethertype 0x%04x is not IP", (unsigned)be(f->b + 12, 2));
		lua_pushstring(L, s);
		return;
	case W_NOT_UDP: lua_pushliteral(L, "not UDP"); return;
	case W_NOT_PORT: lua_pushliteral(L, "not UDP port 4791"); return;
	case W_TRUNC:
		if (f->caplen < f->len)
			lua_pushfstring(L, "truncated RoCEv2 packet (%I of its %I bytes captured)",
					(lua_Integer)f->caplen, (lua_Integer)f->len);
		else
			lua_pushliteral(L, "truncated RoCEv2 packet");
		return;
	}
	lua_pushliteral(L, "RoCEv2");
}

/* The frame at 1, or the string at 1 made a frame (decode's argument). */
static struct frame *frame_arg(lua_State *L, const char *fname)
{
	struct frame *f = to_frame(L, 1);
	if (f)
		return f;
	if (lua_type(L, 1) != LUA_TSTRING)
		luaL_error(L, "bad argument #1 to '%s' (string expected, got %s)", fname, luaL_typename(L, 1));
	size_t n;
	const char *s = lua_tolstring(L, 1, &n);
	wire_push_frame(L, (const uint8_t *)s, (uint32_t)n, (uint32_t)n, NAN, 0);
	lua_replace(L, 1);
	return lua_touserdata(L, 1);
}

/* decode(bytes or frame): the frame, or nil and why it is not RoCEv2. */
static int l_decode(lua_State *L)
{
	lua_settop(L, 1);
	struct frame *f = frame_arg(L, "decode");
	if (f->why == W_OK)
		return 1;
	luaL_pushfail(L);
	push_why(L, f);
	return 2;
}

/* ---- reading fields ----------------------------------------------------- */

static const char *const OPS[32] = {
	"SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE",
	"SEND_ONLY", "SEND_ONLY_WITH_IMMEDIATE", "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE",
	"RDMA_WRITE_LAST", "RDMA_WRITE_LAST_WITH_IMMEDIATE", "RDMA_WRITE_ONLY",
	"RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RDMA_READ_REQUEST", "RDMA_READ_RESPONSE_FIRST",
	"RDMA_READ_RESPONSE_MIDDLE", "RDMA_READ_RESPONSE_LAST", "RDMA_READ_RESPONSE_ONLY",
	"ACKNOWLEDGE", "ATOMIC_ACKNOWLEDGE", "COMPARE_SWAP", "FETCH_ADD", NULL,
	"SEND_LAST_WITH_INVALIDATE", "SEND_ONLY_WITH_INVALIDATE",
};
static const char *const TRANSPORT[8] = { "RC", "UC", "RD", "UD" };
static const char *const AETH_KIND[4] = { "ACK", "RNR NAK", "reserved", "NAK" };
static const char *const NAK[5] = { "PSN sequence error", "invalid request", "remote access error",
				    "remote operational error", "invalid RD request" };

/* The opcode's name without its transport, as p.opcode gives it. */
static void push_opcode(lua_State *L, unsigned op)
{
	char s[8];
	snprintf(s, sizeof s, "0x%02x", op & 0xFF);
	lua_pushstring(L, OPS[op & 0x1F] ? OPS[op & 0x1F] : s);
}

static void push_mac(lua_State *L, const uint8_t *m)
{
	char s[18];
	snprintf(s, sizeof s, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	lua_pushstring(L, s);
}

static void push_addr(lua_State *L, int af, const uint8_t *a)
{
	char s[INET6_ADDRSTRLEN];
	lua_pushstring(L, inet_ntop(af, a, s, sizeof s));
}

/* Each header's field names, in the order of the switch in header_field;
 * NULL ends a list. */
static const char *const *const FIELDS[NHDR] = {
	[H_ETH] = (const char *const[]){ "dst", "src", "type", NULL },
	[H_IP4] = (const char *const[]){ "version", "hdr_len", "dsfield", "len", "id", "ttl", "proto",
					  "checksum", "src", "dst", NULL },
	[H_IP6] = (const char *const[]){ "version", "tclass", "flow", "plen", "nxt", "hlim", "src", "dst", NULL },
	[H_UDP] = (const char *const[]){ "srcport", "dstport", "length", "checksum", NULL },
	[H_BTH] = (const char *const[]){ "opcode", "se", "m", "padcnt", "tver", "p_key", "f", "b", "destqp",
					  "a", "psn", "transport", "opname", NULL },
	[H_DETH] = (const char *const[]){ "q_key", "src_qp", NULL },
	[H_RETH] = (const char *const[]){ "va", "r_key", "dma_length", NULL },
	[H_ATOMICETH] = (const char *const[]){ "va", "r_key", "swap_or_add", "compare", NULL },
	[H_AETH] = (const char *const[]){ "syndrome", "msn", "kind", "value", "nak", "timer", NULL },
	[H_ATOMICACKETH] = (const char *const[]){ "orig_rem_dt", NULL },
};

/* Pushes field i of header h of f (nil for a field this frame has not). */
static void header_field(lua_State *L, const struct frame *f, int h, int i)
{
	const uint8_t *b = f->b;
	const uint8_t *ip = b + IPO, *u = b + f->udp, *t = b + f->bth;
	const uint8_t *x = h >= H_DETH ? b + f->ext[h - H_DETH] : NULL;
#define INT(v) lua_pushinteger(L, (lua_Integer)(v))
	switch (h * 16 + i) {
	case H_ETH * 16 + 0: push_mac(L, b); break;
	case H_ETH * 16 + 1: push_mac(L, b + 6); break;
	case H_ETH * 16 + 2: INT(be(b + 12, 2)); break;
	case H_IP4 * 16 + 0: INT(4); break;
	case H_IP4 * 16 + 1: INT(f->iphl); break;
	case H_IP4 * 16 + 2: INT(ip[1]); break;
	case H_IP4 * 16 + 3: INT(be(ip + 2, 2)); break;
	case H_IP4 * 16 + 4: INT(be(ip + 4, 2)); break;
	case H_IP4 * 16 + 5: INT(ip[8]); break;
	case H_IP4 * 16 + 6: INT(ip[9]); break;
	case H_IP4 * 16 + 7: INT(be(ip + 10, 2)); break;
	case H_IP4 * 16 + 8: push_addr(L, AF_INET, ip + 12); break;
	case H_IP4 * 16 + 9: push_addr(L, AF_INET, ip + 16); break;
	case H_IP6 * 16 + 0: INT(6); break;
	case H_IP6 * 16 + 1: INT((be(ip, 2) >> 4) & 0xFF); break;
	case H_IP6 * 16 + 2: INT(be(ip + 1, 3) & 0xFFFFF); break;
	case H_IP6 * 16 + 3: INT(be(ip + 4, 2)); break;
	case H_IP6 * 16 + 4: INT(ip[6]); break;
	case H_IP6 * 16 + 5: INT(ip[7]); break;
	case H_IP6 * 16 + 6: push_addr(L, AF_INET6, ip + 8); break;
	case H_IP6 * 16 + 7: push_addr(L, AF_INET6, ip + 24); break;
	case H_UDP * 16 + 0: INT(be(u, 2)); break;
	case H_UDP * 16 + 1: INT(be(u + 2, 2)); break;
	case H_UDP * 16 + 2: INT(be(u + 4, 2)); break;
	case H_UDP * 16 + 3: INT(be(u + 6, 2)); break;
	case H_BTH * 16 + 0: INT(t[0]); break;
	case H_BTH * 16 + 1: INT(t[1] >> 7); break;
	case H_BTH * 16 + 2: INT((t[1] >> 6) & 1); break;
	case H_BTH * 16 + 3: INT((t[1] >> 4) & 3); break;
	case H_BTH * 16 + 4: INT(t[1] & 0xF); break;
	case H_BTH * 16 + 5: INT(be(t + 2, 2)); break;
	case H_BTH * 16 + 6: INT(t[4] >> 7); break;
	case H_BTH * 16 + 7: INT((t[4] >> 6) & 1); break;
	case H_BTH * 16 + 8: INT(be(t + 5, 3)); break;
	case H_BTH * 16 + 9: INT(t[8] >> 7); break;
	case H_BTH * 16 + 10: INT(be(t + 9, 3)); break;
	case H_BTH * 16 + 11:
		if (TRANSPORT[t[0] >> 5])
			lua_pushstring(L, TRANSPORT[t[0] >> 5]);
		else
			lua_pushnil(L);
		break;
	case H_BTH * 16 + 12:
		lua_pushstring(L, TRANSPORT[t[0] >> 5] ? TRANSPORT[t[0] >> 5] : "?");
		lua_pushliteral(L, "_");
		push_opcode(L, t[0]);
		lua_concat(L, 3);
		break;
	case H_DETH * 16 + 0: INT(be(x, 4)); break;
	case H_DETH * 16 + 1: INT(be(x + 5, 3)); break;
	case H_RETH * 16 + 0: case H_ATOMICETH * 16 + 0: INT(be64(x)); break;
	case H_RETH * 16 + 1: case H_ATOMICETH * 16 + 1: INT(be(x + 8, 4)); break;
	case H_RETH * 16 + 2: INT(be(x + 12, 4)); break;
	case H_ATOMICETH * 16 + 2: INT(be64(x + 12)); break;
	case H_ATOMICETH * 16 + 3: INT(be64(x + 20)); break;
	case H_AETH * 16 + 0: INT(x[0]); break;
	case H_AETH * 16 + 1: INT(be(x + 1, 3)); break;
	case H_AETH * 16 + 2: lua_pushstring(L, AETH_KIND[(x[0] >> 5) & 3]); break;
	case H_AETH * 16 + 3: INT(x[0] & 0x1F); break;
	case H_AETH * 16 + 4:
		if (((x[0] >> 5) & 3) == 3 && (x[0] & 0x1F) < 5)
			lua_pushstring(L, NAK[x[0] & 0x1F]);
		else
			lua_pushnil(L);
		break;
	case H_AETH * 16 + 5:
		if (((x[0] >> 5) & 3) == 1)
			INT(x[0] & 0x1F);
		else
			lua_pushnil(L);
		break;
	case H_ATOMICACKETH * 16 + 0: INT(be64(x)); break;
	default: lua_pushnil(L);
	}
#undef INT
}

/* A header of a frame, as p.bth gives it: the frame (user value 1) and
 * which header; its fields are read from the frame's bytes when asked. */
struct header {
	const struct frame *f;
	int h;
};

/* Field index of key k in header h, or -1. Upvalue 1 of the metamethods is
 * a table: header number -> { name = index }. */
static int field_index(lua_State *L, int h, int k)
{
	lua_rawgeti(L, lua_upvalueindex(1), h);
	lua_pushvalue(L, k);
	int i = lua_rawget(L, -2) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : -1;
	lua_pop(L, 2);
	return i;
}

static int hdr_index(lua_State *L)
{
	struct header *x = check_mt(L, 1, &hdr_key, HDR_MT);
	int i = field_index(L, x->h, 2);
	if (i < 0)
		return 0;
	header_field(L, x->f, x->h, i);
	return 1;
}

static int hdr_next(lua_State *L)
{
	struct header *x = check_mt(L, 1, &hdr_key, HDR_MT);
	int i = lua_isnil(L, 2) ? 0 : field_index(L, x->h, 2) + 1;
	for (; FIELDS[x->h][i]; i++) {
		lua_pushstring(L, FIELDS[x->h][i]);
		header_field(L, x->f, x->h, i);
		if (!lua_isnil(L, -1))
			return 2;
		lua_pop(L, 2);
	}
	return 0;
}

/* pairs(p.bth): its fields, as the tables of old did */
static int hdr_pairs(lua_State *L)
{
	check_mt(L, 1, &hdr_key, HDR_MT);
	lua_pushvalue(L, lua_upvalueindex(2));   /* hdr_next, with the same upvalue */
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

static const char *const HDR_NAME[NHDR] = { "eth", "ip", "ip", "udp", "bth", "deth", "reth", "atomiceth",
					    "aeth", "atomicacketh" };

static int hdr_tostring(lua_State *L)
{
	struct header *x = check_mt(L, 1, &hdr_key, HDR_MT);
	luaL_Buffer buf;
	luaL_buffinit(L, &buf);
	luaL_addstring(&buf, HDR_NAME[x->h]);
	luaL_addstring(&buf, " {");
	for (int i = 0; FIELDS[x->h][i]; i++) {
		header_field(L, x->f, x->h, i);
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			continue;
		}
		int str = lua_type(L, -1) == LUA_TSTRING;
		lua_pushfstring(L, "%s%s = %s%s%s", i ? ", " : " ", FIELDS[x->h][i], str ? "\"" : "",
				luaL_tolstring(L, -1, NULL), str ? "\"" : "");
		lua_remove(L, -2);
		lua_remove(L, -2);
		luaL_addvalue(&buf);
	}
	luaL_addstring(&buf, " }");
	luaL_pushresult(&buf);
	return 1;
}

static void push_header(lua_State *L, int frame, const struct frame *f, int h)
{
	struct header *x = lua_newuserdatauv(L, sizeof *x, 1);
	x->f = f;
	x->h = h;
	lua_pushvalue(L, frame);
	lua_setiuservalue(L, -2, 1);
	set_mt(L, &hdr_key);
}

/* A frame's own fields, besides its headers. */
enum { F_TIME, F_LENGTH, F_BYTES, F_CAPLEN, F_OPCODE, F_IMMDT, F_IETH, F_PAYLOAD_LENGTH, F_ICRC,
       F_ICRC_OK, F_ICRC_EXPECTED, NFRAME };
static const char *const FRAME_FIELDS[] = { "time", "length", "bytes", "caplen", "opcode", "immdt", "ieth",
					    "payload_length", "icrc", "icrc_ok", "icrc_expected",
					    /* then the headers, numbered NFRAME + h */
					    "eth", "ip", "udp", "bth", "deth", "reth", "atomiceth", "aeth",
					    "atomicacketh", NULL };

/* Pushes field i of FRAME_FIELDS of the frame at idx; nil when it has none. */
static void frame_field(lua_State *L, int idx, struct frame *f, int i)
{
	int roce = f->why == W_OK;
	const uint8_t *b = f->b;
	switch (i) {
	case F_TIME: if (isnan(f->time)) lua_pushnil(L); else lua_pushnumber(L, f->time); return;
	case F_LENGTH: lua_pushinteger(L, f->len); return;
	case F_BYTES: lua_pushlstring(L, (const char *)b, f->caplen); return;
	case F_CAPLEN: lua_pushinteger(L, f->caplen); return;
	}
	if (i >= NFRAME) {   /* a header */
		int h = i - NFRAME;   /* eth ip udp bth deth ... */
		h = h == 0 ? H_ETH : h == 1 ? (f->v6 ? H_IP6 : H_IP4) : h + 1;
		int have = h == H_ETH ? f->why != W_SHORT
			 : h <= H_IP6 ? f->iphl != 0
			 : h == H_UDP ? f->udp != 0
			 : h == H_BTH ? roce : roce && f->ext[h - H_DETH];
		if (have)
			push_header(L, idx, f, h);
		else
			lua_pushnil(L);
		return;
	}
	if (!roce) {
		lua_pushnil(L);
		return;
	}
	switch (i) {
	case F_OPCODE: push_opcode(L, b[f->bth]); return;
	case F_IMMDT: if (f->immdt) lua_pushinteger(L, be(b + f->immdt, 4)); else lua_pushnil(L); return;
	case F_IETH: if (f->ieth) lua_pushinteger(L, be(b + f->ieth, 4)); else lua_pushnil(L); return;
	case F_PAYLOAD_LENGTH:
		lua_pushinteger(L, (lua_Integer)f->end - 4 - f->payload - ((b[f->bth + 1] >> 4) & 3));
		return;
	}
	if (f->end > f->caplen) {   /* the snaplen cut it: no ICRC to read */
		lua_pushnil(L);
		return;
	}
	switch (i) {
	case F_ICRC: lua_pushinteger(L, be(b + f->end - 4, 4)); return;
	case F_ICRC_OK: lua_pushboolean(L, icrc_check(L, f)); return;
	case F_ICRC_EXPECTED: icrc_check(L, f); lua_pushinteger(L, f->icrc_want); return;
	}
}

/* Upvalue 1: the header field tables; upvalue 2: { name = frame field }. */
static int frame_index(lua_State *L)
{
	struct frame *f = check_mt(L, 1, &frame_key, FRAME_MT);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNUMBER)
		return 0;
	frame_field(L, 1, f, (int)lua_tointeger(L, -1));
	return 1;
}

static int frame_next(lua_State *L)
{
	struct frame *f = check_mt(L, 1, &frame_key, FRAME_MT);
	int i = 0;
	if (!lua_isnil(L, 2)) {
		lua_pushvalue(L, 2);
		i = lua_rawget(L, lua_upvalueindex(2)) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) + 1 : NFRAME + 99;
		lua_pop(L, 1);
	}
	for (; i < (int)(sizeof FRAME_FIELDS / sizeof *FRAME_FIELDS) - 1; i++) {
		if (i == F_BYTES)   /* a copy of the whole frame: there when asked, not listed */
			continue;
		lua_pushstring(L, FRAME_FIELDS[i]);
		frame_field(L, 1, f, i);
		if (!lua_isnil(L, -1))
			return 2;
		lua_pop(L, 2);
	}
	return 0;
}

static int frame_pairs(lua_State *L)
{
	check_mt(L, 1, &frame_key, FRAME_MT);
	lua_pushvalue(L, lua_upvalueindex(3));
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

static int frame_tostring(lua_State *L)
{
	struct frame *f = check_mt(L, 1, &frame_key, FRAME_MT);
	if (f->why != W_OK) {
		lua_pushfstring(L, "frame of %I bytes (", (lua_Integer)f->len);
		push_why(L, f);
		lua_pushliteral(L, ")");
		lua_concat(L, 3);
		return 1;
	}
	const uint8_t *t = f->b + f->bth;
	char s[64];
	lua_pushfstring(L, "frame of %I bytes: %s_", (lua_Integer)f->len, TRANSPORT[t[0] >> 5] ? TRANSPORT[t[0] >> 5] : "?");
	push_opcode(L, t[0]);
	snprintf(s, sizeof s, " psn %u destqp 0x%06x", (unsigned)be(t + 9, 3), (unsigned)be(t + 5, 3));
	lua_pushstring(L, s);
	lua_concat(L, 3);
	return 1;
}

static int frame_eq(lua_State *L)
{
	struct frame *a = check_mt(L, 1, &frame_key, FRAME_MT), *b = check_mt(L, 2, &frame_key, FRAME_MT);
	lua_pushboolean(L, a->caplen == b->caplen && a->len == b->len && memcmp(a->b, b->b, a->caplen) == 0);
	return 1;
}

/* ---- pcap files, through libpcap --------------------------------------- */

struct reader {
	pcap_t *p;
	char file[256];
};

static int reader_close(lua_State *L)
{
	struct reader *r = luaL_checkudata(L, 1, READER_MT);
	if (r->p)
		pcap_close(r->p);
	r->p = NULL;
	return 0;
}

/* Opens file for fname; pushes the reader. */
static struct reader *open_pcap(lua_State *L, const char *fname)
{
	if (lua_type(L, 1) != LUA_TSTRING)
		luaL_error(L, "bad argument #1 to '%s' (file name (string) expected, got %s)", fname, luaL_typename(L, 1));
	const char *file = lua_tostring(L, 1);
	struct reader *r = lua_newuserdatauv(L, sizeof *r, 0);
	r->p = NULL;
	snprintf(r->file, sizeof r->file, "%s", file);
	luaL_setmetatable(L, READER_MT);
	char err[PCAP_ERRBUF_SIZE] = "";
	r->p = pcap_open_offline(file, err);
	if (!r->p)
		luaL_error(L, "%s: %s", fname, err);
	if (pcap_datalink(r->p) != DLT_EN10MB) {
		int dlt = pcap_datalink(r->p);
		pcap_close(r->p);
		r->p = NULL;
		const char *name = pcap_datalink_val_to_name(dlt);
		luaL_error(L, "%s: %s has link type %s (%d), not Ethernet (EN10MB): RoCEv2 frames are Ethernet frames",
			   fname, file, name ? name : "?", dlt);
	}
	return r;
}

/* Pushes the next frame of r; 0 at the end. */
static int next_frame(lua_State *L, struct reader *r, const char *fname)
{
	if (!r->p)
		return 0;
	struct pcap_pkthdr *h;
	const u_char *bytes;
	int rc = pcap_next_ex(r->p, &h, &bytes);
	if (rc == 1) {
		wire_push_frame(L, bytes, h->caplen, h->len, (double)h->ts.tv_sec + h->ts.tv_usec / 1e6, 0);
		return 1;
	}
	if (rc == PCAP_ERROR) {
		lua_pushfstring(L, "%s: %s: %s", fname, r->file, pcap_geterr(r->p));
		pcap_close(r->p);
		r->p = NULL;
		lua_error(L);
	}
	pcap_close(r->p);   /* the end: the file is closed before the loop ends */
	r->p = NULL;
	return 0;
}

static int frames_iter(lua_State *L)
{
	struct reader *r = luaL_checkudata(L, lua_upvalueindex(1), READER_MT);
	return next_frame(L, r, "frames");
}

/* for p in verbs.wire.frames(file): one frame at a time, in constant memory;
 * the reader is the loop's to-be-closed value, so a break closes the file. */
static int l_frames(lua_State *L)
{
	lua_settop(L, 1);
	open_pcap(L, "frames");
	lua_pushvalue(L, -1);
	lua_pushcclosure(L, frames_iter, 1);
	lua_pushnil(L);
	lua_pushnil(L);
	lua_pushvalue(L, 2);
	return 4;
}

/* read_pcap(file): every frame in a list. */
static int l_read_pcap(lua_State *L)
{
	lua_settop(L, 1);
	struct reader *r = open_pcap(L, "read_pcap");
	lua_newtable(L);
	for (lua_Integer i = 1; next_frame(L, r, "read_pcap"); i++)
		lua_rawseti(L, -2, i);
	return 1;
}

/* crc32(s [, crc]): zlib's. */
static int l_crc32(lua_State *L)
{
	size_t n;
	const char *s = luaL_checklstring(L, 1, &n);
	lua_Integer c = luaL_optinteger(L, 2, 0);
	const char *why = NULL;
	wire_crc32_fn crc32 = wire_crc32(&why);
	if (!crc32)
		return luaL_error(L, "crc32: zlib could not be loaded: %s", why);
	lua_pushinteger(L, (lua_Integer)crc32((unsigned long)(uint32_t)c, (const unsigned char *)s, (unsigned)n));
	return 1;
}

/* key(frame): what the ladder and the attribution compare, in one call:
 * the BTH opcode, PSN, DestQP, the AETH's kind (nil without one) and the
 * IP source as raw bytes; nothing for a frame that is not RoCEv2. */
static int l_key(lua_State *L)
{
	struct frame *f = to_frame(L, 1);
	if (!f || f->why != W_OK)
		return 0;
	const uint8_t *t = f->b + f->bth;
	lua_pushinteger(L, t[0]);
	lua_pushinteger(L, be(t + 9, 3));
	lua_pushinteger(L, be(t + 5, 3));
	const uint8_t *a = f->ext[H_AETH - H_DETH] ? f->b + f->ext[H_AETH - H_DETH] : NULL;
	if (a)
		lua_pushstring(L, AETH_KIND[(a[0] >> 5) & 3]);
	else
		lua_pushnil(L);
	lua_pushlstring(L, (const char *)f->b + IPO + (f->v6 ? 8 : 12), f->v6 ? 16 : 4);
	return 5;
}

static int l_is_frame(lua_State *L)
{
	lua_pushboolean(L, to_frame(L, 1) != NULL);
	return 1;
}

/* A frame of a string or of fields: frame(bytes [, time [, length]]). */
static int l_frame(lua_State *L)
{
	size_t n;
	const char *s = luaL_checklstring(L, 1, &n);
	double t = luaL_optnumber(L, 2, NAN);
	lua_Integer len = luaL_optinteger(L, 3, (lua_Integer)n);
	if (len < (lua_Integer)n || len > 0xFFFFFFFF)   /* pcap keeps the length in 32 bits */
		return luaL_argerror(L, 3, lua_pushfstring(L, "a length on the wire from the bytes given (%d) to 4294967295, got %I",
							   (int)n, len));
	wire_push_frame(L, (const uint8_t *)s, (uint32_t)n, (uint32_t)len, t, 0);
	return 1;
}

static void make_metatables(lua_State *L)
{
	/* upvalue 1 of the metamethods: header -> { field name = index } */
	lua_createtable(L, NHDR, 0);
	for (int h = 0; h < NHDR; h++) {
		lua_newtable(L);
		for (int i = 0; FIELDS[h][i]; i++) {
			lua_pushinteger(L, i);
			lua_setfield(L, -2, FIELDS[h][i]);
		}
		lua_rawseti(L, -2, h);
	}
	int fields = lua_gettop(L);
	if (luaL_newmetatable(L, HDR_MT)) {
		lua_pushvalue(L, fields);
		lua_pushcclosure(L, hdr_index, 1);
		lua_setfield(L, -2, "__index");
		lua_pushvalue(L, fields);
		lua_pushcclosure(L, hdr_next, 1);
		lua_pushvalue(L, fields);
		lua_insert(L, -2);
		lua_pushcclosure(L, hdr_pairs, 2);
		lua_setfield(L, -2, "__pairs");
		lua_pushcfunction(L, hdr_tostring);
		lua_setfield(L, -2, "__tostring");
		lua_pushliteral(L, "frame header");
		lua_setfield(L, -2, "__name");
	}
	lua_rawsetp(L, LUA_REGISTRYINDEX, &hdr_key);
	lua_newtable(L);   /* frame field names */
	for (int i = 0; FRAME_FIELDS[i]; i++) {
		lua_pushinteger(L, i);
		lua_setfield(L, -2, FRAME_FIELDS[i]);
	}
	int names = lua_gettop(L);
	if (luaL_newmetatable(L, FRAME_MT)) {
		lua_pushvalue(L, fields);
		lua_pushvalue(L, names);
		lua_pushcclosure(L, frame_index, 2);
		lua_setfield(L, -2, "__index");
		lua_pushvalue(L, fields);
		lua_pushvalue(L, names);
		lua_pushvalue(L, fields);
		lua_pushvalue(L, names);
		lua_pushcclosure(L, frame_next, 2);
		lua_pushcclosure(L, frame_pairs, 3);
		lua_setfield(L, -2, "__pairs");
		lua_pushcfunction(L, frame_tostring);
		lua_setfield(L, -2, "__tostring");
		lua_pushcfunction(L, frame_eq);
		lua_setfield(L, -2, "__eq");
		lua_pushliteral(L, "frame");
		lua_setfield(L, -2, "__name");
	}
	lua_rawsetp(L, LUA_REGISTRYINDEX, &frame_key);
	lua_pop(L, 2);   /* the name tables */
}

static int open_core(lua_State *L)
{
	make_metatables(L);
	if (luaL_newmetatable(L, READER_MT)) {
		lua_pushcfunction(L, reader_close);
		lua_setfield(L, -2, "__gc");
		lua_pushcfunction(L, reader_close);
		lua_setfield(L, -2, "__close");
	}
	lua_pop(L, 1);
	static const luaL_Reg fns[] = {
		{ "decode", l_decode }, { "frames", l_frames }, { "read_pcap", l_read_pcap },
		{ "crc32", l_crc32 }, { "key", l_key }, { "is_frame", l_is_frame }, { "frame", l_frame },
		{ NULL, NULL },
	};
	luaL_newlib(L, fns);
	return 1;
}

void wire_open(lua_State *L)
{
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	lua_pushcfunction(L, open_core);
	lua_setfield(L, -2, "verbs.wire_core");
	lua_pop(L, 1);
}
