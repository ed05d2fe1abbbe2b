/* The one table<->struct marshaller. Each C struct the bindings take or give
 * is described once by an array of struct vfield (name, type, offset, enum
 * table, nested descriptor, mask bit); this file walks those descriptors to
 * fill a struct from a Lua table (rejecting unknown keys, wrong types and
 * out-of-range values, naming the key), to turn a struct back into a table,
 * and to write it as a C initializer for the trace. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

#define PATH_MAX_LEN 96

static void put_uint(void *p, int size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = v; break;
	}
}

static uint64_t get_uint(const void *p, int size)
{
	switch (size) {
	case 1: return *(const uint8_t *)p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

static int64_t get_int(const void *p, int size)
{
	switch (size) {
	case 1: return *(const int8_t *)p;
	case 2: return *(const int16_t *)p;
	case 4: return *(const int32_t *)p;
	default: return *(const int64_t *)p;
	}
}

/* Where a table being read sits: prefix.key[index] (see marsh_path). Kept
 * in parts, and put together only for an error message: a post reads a
 * table per WR and per SGE, and building "sg_list[1]" for each cost more
 * than reading the SGE's keys (callgrind). */
struct at {
	const char *prefix, *key;
	int index;
	void *ctx;   /* the reader's, for the seen callbacks (marsh_read_ctx) */
};

static char *at_path(char *out, size_t len, const struct at *at)
{
	return marsh_path(out, len, at->prefix, at->key, at->index);
}

/* at.key: the path of a key of the table at `at`. */
static char *key_path(char *out, size_t len, const struct at *at, const char *key)
{
	char prefix[PATH_MAX_LEN];
	return marsh_path(out, len, at_path(prefix, sizeof prefix, at), key, 0);
}

__attribute__((noreturn))
static void bad_key(lua_State *L, int arg, const struct at *at, const char *key, const char *msg)
{
	char path[PATH_MAX_LEN];
	vargerror(L, arg, lua_pushfstring(L, "key '%s': %s", key_path(path, sizeof path, at, key), msg));
	abort(); /* not reached: luaL_argerror raises */
}

uint64_t marsh_check_uint(lua_State *L, int arg, int idx, uint64_t max, const char *what)
{
	int isint;
	lua_Integer v = lua_tointegerx(L, idx, &isint);
	if (!isint || lua_type(L, idx) != LUA_TNUMBER)
		vargerror(L, arg, lua_pushfstring(L, "%s: integer expected, got %s", what,
						      lua_type(L, idx) == LUA_TNUMBER ? "a fraction"
										  : luaL_typename(L, idx)));
	if (v < 0 && !max)
		vargerror(L, arg, lua_pushfstring(L, "%s: %I is negative", what, v));
	if (v < 0 || (max && (uint64_t)v > max))
		vargerror(L, arg, lua_pushfstring(L, "%s: %I is out of range (0..%I)", what, v,
						      (lua_Integer)max));
	return (uint64_t)v;
}

/* The text of the string at idx when C can read all of it, else NULL: C
 * reads a string up to its first NUL, so "INIT\0RTS" would reach it as INIT
 * and "rxe0\0x" as rxe0. Every string verbsh hands to C as text passes here. */
const char *marsh_cstring(lua_State *L, int idx)
{
	size_t len;
	const char *s = lua_tolstring(L, idx, &len);
	return s && strlen(s) == len ? s : NULL;
}

/* The same, raising when the string holds a NUL byte, naming what it is. */
const char *marsh_check_cstring(lua_State *L, int arg, int idx, const char *what)
{
	const char *s = marsh_cstring(L, idx);
	if (!s && lua_type(L, idx) == LUA_TSTRING)
		vargerror(L, arg, lua_pushfstring(L, "%s: the string has a NUL byte after '%s' (C would stop "
						      "reading there and ignore the rest)", what, lua_tostring(L, idx)));
	return s;
}

/* Keys given in a table whose comp_mask bit the given comp_mask lacks: C
 * ignores those members, which is almost always a mistake, so say so. */
void marsh_warn_unmasked(lua_State *L, int arg, const struct vfield *f, uint64_t given, uint64_t comp_mask,
			 const struct venum *mask_names)
{
	for (; f->name; f++)
		if (f->bit && (given & f->bit) && !(comp_mask & f->bit))
			vwarn(L, arg, "key '%s' is ignored: comp_mask lacks %s, and without it %s does not read "
				      "the member (add \"%s\" to comp_mask, or leave comp_mask out and verbsh computes it)",
			      f->name, venum_name(mask_names, (int64_t)f->bit), "the provider",
			      venum_name(mask_names, (int64_t)f->bit));
}

const char *marsh_gid_read(lua_State *L, int idx, union ibv_gid *gid)
{
	size_t len;
	if (lua_type(L, idx) != LUA_TSTRING)
		return lua_pushfstring(L, "GID expected (text such as \"fe80::1\" or 16 bytes), got %s",
				       luaL_typename(L, idx));
	const char *s = lua_tolstring(L, idx, &len);
	if (strlen(s) == len && inet_pton(AF_INET6, s, gid->raw) == 1)
		return NULL;
	if (len == 16) {   /* raw bytes: NULs are data here */
		memcpy(gid->raw, s, 16);
		return NULL;
	}
	if (strlen(s) != len)
		return lua_pushfstring(L, "'%s' followed by a NUL byte is not a GID (IPv6 text such as \"fe80::1\", "
					  "without NULs, or 16 raw bytes)", s);
	return lua_pushfstring(L, "'%s' is not a GID (IPv6 text such as \"fe80::1\" or 16 raw bytes)", s);
}

void marsh_gid_push(lua_State *L, const union ibv_gid *gid)
{
	char text[INET6_ADDRSTRLEN];
	inet_ntop(AF_INET6, gid->raw, text, sizeof text);
	lua_pushstring(L, text);
}


/* Paths are still built for each WR of a list (those of keys and SGEs only
 * on an error): plain copies, since snprintf per key cost a quarter of the
 * instructions of a post_send/post_recv loop (callgrind). */
char *marsh_path(char *out, size_t len, const char *prefix, const char *key, int index)
{
	char num[24], *o = out, *end = out + len - 1;
	size_t pl = strlen(prefix);
	bool dot = pl && prefix[pl - 1] != '.' && key && *key && *key != '[';
	const char *parts[4] = { prefix, dot ? "." : "", key ? key : "", "" };
	if (index > 0) {
		char *d = num + sizeof num - 1;
		*d = '\0';
		*--d = ']';
		for (unsigned v = (unsigned)index; v; v /= 10)
			*--d = (char)('0' + v % 10);
		*--d = '[';
		parts[3] = d;
	}
	for (int i = 0; i < 4; i++)
		for (const char *c = parts[i]; *c && o < end; c++)
			*o++ = *c;
	*o = '\0';
	return out;
}

/* The key's path (prefix.key) is put together only for an error message. */
static uint64_t read_table(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst, const struct at *at);

static void read_value(lua_State *L, int arg, int idx, const struct vfield *f, void *dst, const struct at *at,
		       const char *key)
{
	char *p = (char *)dst + f->offset;
	const char *err;
	int64_t v;

	switch (f->type) {
	case VT_INT:
	case VT_UINT: {
		int isint;
		lua_Integer n;
		if (f->max == 1 && lua_type(L, idx) == LUA_TBOOLEAN) {   /* a 0/1 field takes booleans */
			put_uint(p, f->size, lua_toboolean(L, idx));
			return;
		}
		n = lua_tointegerx(L, idx, &isint);
		if (lua_type(L, idx) != LUA_TNUMBER || !isint)
			bad_key(L, arg, at, key, lua_pushfstring(L, "integer expected, got %s",
				lua_type(L, idx) == LUA_TNUMBER ? "a fraction" : luaL_typename(L, idx)));
		if (f->type == VT_UINT && f->size < 8) {
			uint64_t max = f->max ? (uint64_t)f->max : ((uint64_t)1 << (8 * f->size)) - 1;
			if (n < 0 || (uint64_t)n > max)
				bad_key(L, arg, at, key, lua_pushfstring(L, "%I is out of range (0..%I)", n,
								      (lua_Integer)max));
		} else if (f->type == VT_INT && f->size < 8) {
			int64_t max = f->max ? f->max : ((int64_t)1 << (8 * f->size - 1)) - 1;
			int64_t min = f->max ? 0 : -max - 1;
			if (n < min || n > max)
				bad_key(L, arg, at, key, lua_pushfstring(L, "%I is out of range (%I..%I)", n,
								      (lua_Integer)min, (lua_Integer)max));
		} else if (f->max && (n < 0 || n > f->max)) {
			bad_key(L, arg, at, key, lua_pushfstring(L, "%I is out of range (0..%I)", n,
							      (lua_Integer)f->max));
		}
		put_uint(p, f->size, (uint64_t)n);
		return;
	}
	case VT_ENUM:
	case VT_FLAGS:
		if ((err = venum_read(L, idx, f->en, &v)))
			bad_key(L, arg, at, key, err);
		if (f->size < 8 && (uint64_t)v >> (8 * f->size) && v >= 0)
			bad_key(L, arg, at, key, lua_pushfstring(L, "%I does not fit in %I bytes", (lua_Integer)v,
							      (lua_Integer)f->size));
		put_uint(p, f->size, (uint64_t)v);
		return;
	case VT_GID:
		if ((err = marsh_gid_read(L, idx, (union ibv_gid *)p)))
			bad_key(L, arg, at, key, err);
		return;
	case VT_STRUCT:
		if (!lua_istable(L, idx))
			bad_key(L, arg, at, key, lua_pushfstring(L, "table expected, got %s", luaL_typename(L, idx)));
		{
			char path[PATH_MAX_LEN];
			struct at sub = { key_path(path, sizeof path, at, key), "", 0, at->ctx };
			read_table(L, arg, idx, f->sub, p, &sub);
		}
		return;
	case VT_OBJ: {
		struct vnode *n;
		if ((err = vobj_why(L, idx, f->cls, &n)))
			bad_key(L, arg, at, key, err);
		*(void **)p = n->h;
		if (f->seen)
			f->seen(L, idx, n, at->ctx);
		return;
	}
	case VT_CUSTOM:
		if ((err = f->custom(L, idx, dst, f)))
			bad_key(L, arg, at, key, err);
		return;
	}
}

void marsh_read_value(lua_State *L, int arg, int idx, const struct vfield *f, void *dst, const char *path)
{
	struct at at = { path, "", 0, NULL };
	read_value(L, arg, lua_absindex(L, idx), f, dst, &at, NULL);
}

const char *marsh_closest(const struct vfield *f, const char *key)
{
	struct vsuggest s;
	vsuggest_init(&s, key);
	for (; f->name; f++)
		vsuggest_offer(&s, f->name);
	return vsuggest_best(&s);
}

void marsh_add_names(luaL_Buffer *b, const struct vfield *f)
{
	for (; f->name; f++) {
		luaL_addstring(b, f->name);
		luaL_addstring(b, f[1].name ? ", " : ")");
	}
}

/* "unknown key 'dest_qp' (did you mean 'dest_qp_num'?)": the closest key of
 * f, or a key of a nested struct ('rkey' at the top of a WR is rdma.rkey),
 * or C's union name (wr.rdma is rdma here), or else the keys there are. */
static const char *unknown_key(lua_State *L, const struct vfield *f, const char *path, const char *key)
{
	const struct vfield *fd, *sub;
	const char *near;
	for (fd = f; fd->name; fd++)
		if (fd->type == VT_STRUCT)
			for (sub = fd->sub; sub->name; sub++)
				if (strcmp(sub->name, key) == 0)
					return lua_pushfstring(L, "unknown key '%s' (did you mean %s = { %s = ... }? in C: %s.%s)",
							       path, fd->name, key, fd->cname ? fd->cname : fd->name, key);
	if ((near = marsh_closest(f, key)))
		return lua_pushfstring(L, "unknown key '%s' (did you mean '%s'?)", path, near);
	if (strcmp(key, "wr") == 0)
		for (fd = f; fd->name; fd++)
			if (fd->cname && strncmp(fd->cname, "wr.", 3) == 0)
				return lua_pushfstring(L, "unknown key '%s' (C's wr.rdma, wr.atomic and wr.ud are the keys"
							  " rdma, atomic and ud here: rdma = { remote_addr = ..., rkey = ... })", path);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	lua_pushfstring(L, "unknown key '%s' (keys: ", path);
	luaL_addvalue(&b);
	marsh_add_names(&b, f);
	luaL_pushresult(&b);
	return lua_tostring(L, -1);
}

/* The field of f named key. The first letters are compared before calling
 * strcmp: most fields differ there, and a post looks up a dozen keys. */
static const struct vfield *find_field(const struct vfield *f, const char *key)
{
	for (; f->name; f++)
		if (f->name[0] == key[0] && strcmp(f->name, key) == 0)
			return f;
	return NULL;
}

static uint64_t read_table(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst, const struct at *at)
{
	uint64_t mask = 0;
	char path[PATH_MAX_LEN];

	tidx = lua_absindex(L, tidx);
	luaL_checkstack(L, 8, "table too deep");
	lua_pushnil(L);
	while (lua_next(L, tidx)) {
		if (lua_type(L, -2) != LUA_TSTRING) {
			const char *k = luaL_tolstring(L, -2, NULL);
			at_path(path, sizeof path, at);
			vargerror(L, arg, lua_pushfstring(L, "unexpected key %s%s%s (keys are field names)",
							      path, *path ? "." : "", k));
		}
		const char *key = lua_tostring(L, -2);
		if (!marsh_cstring(L, -2)) {
			at_path(path, sizeof path, at);
			vargerror(L, arg, lua_pushfstring(L, "unexpected key '%s%s%s' followed by a NUL byte (keys are "
							      "field names)", path, *path ? "." : "", key));
		}
		const struct vfield *fd = find_field(f, key);
		if (!fd)
			vargerror(L, arg, unknown_key(L, f, key_path(path, sizeof path, at, key), key));
		if (fd->no_input)
			vargerror(L, arg, lua_pushfstring(L, "key '%s' cannot be set: %s",
							  key_path(path, sizeof path, at, key), fd->no_input));
		read_value(L, arg, lua_gettop(L), fd, dst, at, key);
		mask |= fd->bit;
		lua_pop(L, 1);
	}
	return mask;
}

uint64_t marsh_read_path(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst, const char *prefix)
{
	struct at at = { prefix, "", 0, NULL };
	return read_table(L, arg, tidx, f, dst, &at);
}

uint64_t marsh_read_ctx(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst, const char *prefix,
			const char *key, int index, void *ctx)
{
	struct at at = { prefix, key, index, ctx };
	return read_table(L, arg, tidx, f, dst, &at);
}

uint64_t marsh_read(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst)
{
	return marsh_read_path(L, arg, tidx, f, dst, "");
}

bool marsh_push_field(lua_State *L, const struct vfield *f, const void *src)
{
	const char *p = (const char *)src + f->offset;
	if (f->no_output || (f->present && !f->present(src)))
		return false;
	switch (f->type) {
	case VT_INT: lua_pushinteger(L, get_int(p, f->size)); break;
	case VT_UINT: lua_pushinteger(L, (lua_Integer)get_uint(p, f->size)); break;
	case VT_ENUM: venum_push(L, f->en, f->size == 4 ? (int64_t)get_int(p, 4) : (int64_t)get_uint(p, f->size)); break;
	case VT_FLAGS: vflags_push(L, f->en, get_uint(p, f->size)); break;
	case VT_GID: marsh_gid_push(L, (const union ibv_gid *)p); break;
	case VT_STRUCT: marsh_push(L, f->sub, p); break;
	case VT_CUSTOM:
		if (!f->push)
			return false;
		f->push(L, src);
		break;
	default: return false;
	}
	return true;
}

const struct vfield *marsh_field(const struct vfield *f, const char *name)
{
	for (; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

void marsh_push(lua_State *L, const struct vfield *f, const void *src)
{
	lua_newtable(L);
	for (; f->name; f++)
		if (marsh_push_field(L, f, src))
			lua_setfield(L, -2, f->name);
}

