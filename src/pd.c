/* Protection domains and memory regions. verbsh allocates the memory of an
 * MR itself (page-aligned, owned by the MR), so that a learner can register,
 * read and write a buffer without pointers, and nothing reads past it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "verbsh.h"

int ah_create(lua_State *L);        /* ah.c */
static int pd_destroy(struct vnode *n) { return ibv_dealloc_pd(n->h); }

static void pd_describe(lua_State *L, struct vnode *n)
{
	lua_pushfstring(L, "handle %d", (int)((struct ibv_pd *)n->h)->handle);
}

/* ctx:alloc_pd() */
int pd_alloc(lua_State *L)
{
	struct vnode *c = vobj_check(L, 1, &vc_context);
	vnoextra(L, 1, "ctx:alloc_pd()", NULL);
	int deps[] = { 1 };
	struct vnode *n = vobj_new(L, &vc_pd, 1, deps);
	struct ibv_pd *pd = ibv_alloc_pd(c->h);
	int err = errno;
	if (!pd)
		return vraise(L, "ibv_alloc_pd", err, 1, 0);
	vobj_set(n, pd);
	return 1;
}

/* ---- MR ------------------------------------------------------------------- */

static int mr_destroy(struct vnode *n)
{
	int err = ibv_dereg_mr(n->h);
	if (!err) {
		free(vmr(n)->buf);
		vmr(n)->buf = NULL;
	}
	return err;
}

static void mr_describe(lua_State *L, struct vnode *n)
{
	struct ibv_mr *mr = n->h;
	char s[96];
	snprintf(s, sizeof s, "%zu bytes lkey 0x%x rkey 0x%x", vmr(n)->len, mr->lkey, mr->rkey);
	lua_pushstring(L, s);
}

static int mr_field(lua_State *L, struct vnode *n, const char *key)
{
	struct ibv_mr *mr = n->h;
	if (strcmp(key, "addr") == 0)
		lua_pushinteger(L, (lua_Integer)(uintptr_t)mr->addr);
	else if (strcmp(key, "length") == 0)
		lua_pushinteger(L, (lua_Integer)mr->length);
	else if (strcmp(key, "lkey") == 0)
		lua_pushinteger(L, mr->lkey);
	else if (strcmp(key, "rkey") == 0)
		lua_pushinteger(L, mr->rkey);
	else if (strcmp(key, "handle") == 0)
		lua_pushinteger(L, mr->handle);
	else if (strcmp(key, "access") == 0)
		vflags_push(L, &ve_access, (uint64_t)vmr(n)->access);
	else
		return 0;
	return 1;
}

/* Registers memory verbsh allocates, of the size or with the contents at
 * arg, on pd; the MR uses the object at dep (its PD, or the cm_id whose PD
 * it is) and is pushed. verb names the call in errors (ibv_reg_mr,
 * rdma_reg_msgs). */
int mr_register(lua_State *L, int dep, struct ibv_pd *pd, int arg, int access, const char *verb)
{
	size_t len;
	const char *init = NULL;
	long page = sysconf(_SC_PAGESIZE);
	void *buf;

	if (lua_type(L, arg) == LUA_TSTRING)
		init = lua_tolstring(L, arg, &len);
	else if (lua_type(L, arg) == LUA_TNUMBER)
		len = (size_t)marsh_check_uint(L, arg, arg, (uint64_t)1 << 40, "length");
	else
		return vtypeerror(L, arg, "length (integer) or initial contents (string)");
	if (posix_memalign(&buf, (size_t)page, len ? (len + (size_t)page - 1) / (size_t)page * (size_t)page
						  : (size_t)page))
		return luaL_error(L, "%s: cannot allocate %I bytes", verb, (lua_Integer)len);
	if (init)
		memcpy(buf, init, len);
	else
		memset(buf, 0, len);
	int deps[] = { dep };
	struct vnode *n = vobj_new(L, &vc_mr, 1, deps);
	vmr(n)->buf = buf;
	vmr(n)->len = len;
	vmr(n)->access = access;
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, len, access);
	int err = errno;
	if (!mr) {
		/* The node never gets a handle, so no destroy will free its buffer. */
		free(buf);
		vmr(n)->buf = NULL;
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, (lua_Integer)len);
		lua_setfield(L, -2, "length");
		lua_pushinteger(L, (lua_Integer)access);
		lua_setfield(L, -2, "access");
		return vraise_create(L, verb, err, dep);
	}
	vobj_set(n, mr);
	return 1;
}

/* pd:reg_mr(size_or_string [, access]) */
static int l_reg_mr(lua_State *L)
{
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	int64_t access = 0;
	const char *e;
	if (lua_type(L, 2) != LUA_TSTRING && lua_type(L, 2) != LUA_TNUMBER)
		return vtypeerror(L, 2, "length (integer) or initial contents (string)");
	if (lua_type(L, 2) == LUA_TNUMBER)
		marsh_check_uint(L, 2, 2, (uint64_t)1 << 40, "length");
	if (!lua_isnoneornil(L, 3) && (e = venum_read(L, 3, &ve_access, &access)))
		return vargerror(L, 3, e);
	return mr_register(L, 1, p->h, 2, (int)access, "ibv_reg_mr");
}

/* The range [off, off+len) of the MR at 1, checked; args at oarg, oarg+1. */
static void mr_range(lua_State *L, struct vnode *n, int oarg, size_t *off, size_t *len, bool len_given)
{
	*off = lua_isnoneornil(L, oarg) ? 0 : (size_t)marsh_check_uint(L, oarg, oarg, vmr(n)->len, "offset");
	if (len_given && !lua_isnoneornil(L, oarg + 1)) {
		*len = (size_t)marsh_check_uint(L, oarg + 1, oarg + 1, 0, "length");
		if (*len > vmr(n)->len - *off)
			vargerror(L, oarg + 1, lua_pushfstring(L, "offset %I + length %I is beyond the MR's %I bytes",
				(lua_Integer)*off, (lua_Integer)*len, (lua_Integer)vmr(n)->len));
	} else {
		*len = vmr(n)->len - *off;
	}
}

/* mr:read([offset [, length]]) -> string */
static int l_mr_read(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_mr);
	vnoextra(L, 3, "mr:read([off [, len]])", NULL);
	size_t off, len;
	mr_range(L, n, 2, &off, &len, true);
	lua_pushlstring(L, (const char *)vmr(n)->buf + off, len);
	return 1;
}

/* mr:write(offset, string) */
static int l_mr_write(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_mr);
	vnoextra(L, 3, "mr:write(off, str)", NULL);
	size_t off = (size_t)marsh_check_uint(L, 2, 2, vmr(n)->len, "offset"), len;
	if (lua_type(L, 3) != LUA_TSTRING)
		return vtypeerror(L, 3, "string");
	const char *s = lua_tolstring(L, 3, &len);
	if (len > vmr(n)->len - off)
		return vargerror(L, 3, lua_pushfstring(L, "%I bytes at offset %I are beyond the MR's %I bytes",
			(lua_Integer)len, (lua_Integer)off, (lua_Integer)vmr(n)->len));
	memcpy((char *)vmr(n)->buf + off, s, len);
	return 0;
}

/* mr:fill(byte [, offset [, length]]) */
static int l_mr_fill(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_mr);
	vnoextra(L, 4, "mr:fill(byte [, off, len])", NULL);
	int byte = (int)marsh_check_uint(L, 2, 2, 255, "byte");
	size_t off, len;
	mr_range(L, n, 3, &off, &len, true);
	memset((char *)vmr(n)->buf + off, byte, len);
	return 0;
}

static const luaL_Reg pd_methods[] = {
	{ "reg_mr", l_reg_mr }, { "create_qp", qp_create }, { "create_ah", ah_create }, { "create_ah_from_wc", ah_create_from_wc },
	{ "create_srq", srq_create }, { "alloc_mw", pd_alloc_mw }, { NULL, NULL }
};
static const luaL_Reg mr_methods[] = {
	{ "read", l_mr_read }, { "write", l_mr_write }, { "fill", l_mr_fill }, { NULL, NULL }
};

const struct vclass vc_pd = {
	.index = VC_PD,
	.kind = "pd", .var = "pd", .tname = "verbs.pd", .destroy_verb = "ibv_dealloc_pd",
	.destroy_method = "dealloc", .destroy = pd_destroy, .describe = pd_describe, .methods = pd_methods,
};
const struct vclass vc_mr = {
	.size = sizeof(struct vmr),
	.index = VC_MR,
	.kind = "mr", .var = "mr", .tname = "verbs.mr", .destroy_verb = "ibv_dereg_mr",
	.destroy_method = "dereg", .destroy = mr_destroy, .describe = mr_describe, .field = mr_field,
	.fields = (const char *const[]){ "addr", "length", "lkey", "rkey", "handle", "access", NULL },
	.methods = mr_methods,
};

void pd_open(lua_State *L)
{
	vobj_register(L, &vc_pd);
	vobj_register(L, &vc_mr);
}

bool vobj_mr_covers(lua_State *L, uint64_t addr, uint64_t len)
{
	FOR_NODES(L, n)
		if (n->cls == &vc_mr && n->h && addr >= (uintptr_t)vmr(n)->buf &&
		    addr - (uintptr_t)vmr(n)->buf <= vmr(n)->len && len <= vmr(n)->len - (addr - (uintptr_t)vmr(n)->buf))
			return true;
	return false;
}
