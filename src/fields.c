/* verbs.fields and verbs.enum: the marshaller's own descriptors, seen from
 * Lua. help() builds its lists of keys from them, and the shell's Tab
 * completion offers them, so neither can drift from what the marshaller
 * accepts. */
#include <string.h>
#include "verbsh.h"

/* Every table verbsh reads or gives, by the C type it stands for. */
static const struct {
	const char *ctype;
	const struct vfield *f;
} structs[] = {
	{ "ibv_qp_attr", vf_qp_attr },
	{ "ibv_qp_init_attr", vf_qp_init_attr },
	{ "ibv_qp_init_attr_ex", vf_qp_init_attr_ex },
	{ "ibv_qp_cap", vf_qp_cap },
	{ "ibv_ah_attr", vf_ah_attr },
	{ "ibv_global_route", vf_global_route },
	{ "ibv_send_wr", vf_send_wr },
	{ "ibv_recv_wr", vf_recv_wr },
	{ "ibv_sge", vf_sge },
	{ "ibv_send_wr.wr.rdma", vf_wr_rdma },
	{ "ibv_send_wr.wr.atomic", vf_wr_atomic },
	{ "ibv_send_wr.wr.ud", vf_wr_ud },
	{ "ibv_send_wr.bind_mw", vf_wr_bind_mw },
	{ "ibv_mw_bind", vf_mw_bind },
	{ "ibv_mw_bind_info", vf_mw_bind_info },
	{ "ibv_srq_attr", vf_srq_attr },
	{ "ibv_cq_init_attr_ex", vf_cq_init_attr_ex },
	{ "ibv_create_cq options", vf_cq_opts },
	{ "rdma_conn_param", vf_conn_param },
	{ "rdma_cm_join_mc_attr_ex", vf_join_mc_attr_ex },
	{ "rdma_addrinfo", vf_rdma_addrinfo },
	{ "ibv_wc", vf_wc },
	{ "ibv_device_attr", vf_device_attr },
	{ "ibv_port_attr", vf_port_attr },
	{ "ibv_srq_init_attr_ex", vf_srq_init_attr_ex },
	{ "ibv_tm_cap", vf_tm_cap },
};
#define NSTRUCTS (sizeof structs / sizeof structs[0])

/* The structs whose fields' bits are a C mask, and its enum (post.c's bits
 * are its own bookkeeping, not C's). */
static const struct {
	const struct vfield *f;
	const struct venum *mask;
} masks[] = {
	{ vf_qp_attr, &ve_qp_attr_mask }, { vf_srq_attr, &ve_srq_attr_mask },
	{ vf_qp_init_attr_ex, &ve_qp_init_attr_mask }, { vf_cq_init_attr_ex, &ve_cq_init_attr_mask },
};

static const char *struct_name(const struct vfield *f)
{
	for (size_t i = 0; i < NSTRUCTS; i++)
		if (structs[i].f == f)
			return structs[i].ctype;
	return NULL;
}

static const char *const type_names[] = {
	[VT_INT] = "int", [VT_UINT] = "uint", [VT_ENUM] = "enum", [VT_FLAGS] = "flags", [VT_GID] = "gid",
	[VT_STRUCT] = "struct", [VT_OBJ] = "object", [VT_CUSTOM] = "custom",
};

static void set_str(lua_State *L, const char *k, const char *v)
{
	if (!v)
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, k);
}

/* The range read_value (marshal.c) accepts for an integer field. */
static void push_range(lua_State *L, const struct vfield *f)
{
	if (f->type == VT_UINT) {
		set_int(L, "min", 0);
		if (f->max || f->size < 8)
			set_int(L, "max", f->max ? f->max : (lua_Integer)(((uint64_t)1 << (8 * f->size)) - 1));
	} else if (f->max) {
		set_int(L, "min", 0);
		set_int(L, "max", f->max);
	} else if (f->size < 8) {
		lua_Integer max = (lua_Integer)(((uint64_t)1 << (8 * f->size - 1)) - 1);
		set_int(L, "min", -max - 1);
		set_int(L, "max", max);
	}
	if (f->max == 1) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "boolean");
	}
}

/* An unknown C type given to verbs.fields(ctype) or verbs.enum(ctype), a
 * typo most likely, is never a silent nil: raises naming the argument, with
 * the closest C type of the kind asked for, or says which function
 * describes the other kind. */
static int unknown_ctype(lua_State *L, const char *ctype, bool want_enum)
{
	struct vsuggest s;
	vsuggest_init(&s, ctype);
	if (want_enum) {
		if (venum_find(ctype) == NULL)
			for (size_t i = 0; i < NSTRUCTS; i++)
				if (strcmp(structs[i].ctype, ctype) == 0)
					return vargerror(L, 1, lua_pushfstring(L, "%s is a struct, not an enum: "
						"verbs.fields(\"%s\") gives its keys", ctype, ctype));
		for (size_t i = 0; venum_at(i); i++)
			vsuggest_offer(&s, venum_at(i)->ctype);
	} else {
		if (venum_find(ctype))
			return vargerror(L, 1, lua_pushfstring(L, "%s is an enum, not a struct: verbs.enum(\"%s\") "
				"gives its names and values", ctype, ctype));
		for (size_t i = 0; i < NSTRUCTS; i++)
			vsuggest_offer(&s, structs[i].ctype);
	}
	const char *kind = want_enum ? "enum" : "struct";
	const char *list = want_enum ? "pairs(verbs.enums)" : "verbs.fields()";
	if (vsuggest_best(&s))
		return vargerror(L, 1, lua_pushfstring(L, "unknown C %s '%s'; did you mean '%s'? (%s lists them)", kind, ctype, vsuggest_best(&s), list));
	return vargerror(L, 1, lua_pushfstring(L, "unknown C %s '%s' (%s lists them)", kind, ctype,
					       list));
}

/* verbs.fields() -> the C type names described; verbs.fields(ctype) -> a
 * list of { name=, type=, c=, enum=, struct=, class=, min=, max=, boolean=,
 * input_only=, mask= }, in the C struct's order; an error for an unknown
 * ctype. mask: the C name of the bit the key sets in the verb's mask
 * ("IBV_QP_PATH_MTU"), the very bit the binding ORs in. */
static int l_fields(lua_State *L)
{
	if (lua_isnoneornil(L, 1)) {
		lua_createtable(L, NSTRUCTS, 0);
		for (size_t i = 0; i < NSTRUCTS; i++) {
			lua_pushstring(L, structs[i].ctype);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		return 1;
	}
	luaL_checkstring(L, 1);
	const char *ctype = marsh_check_cstring(L, 1, 1, "C type");
	if (strncmp(ctype, "struct ", 7) == 0)
		ctype += 7;
	const struct vfield *f = NULL;
	const struct venum *mask = NULL;
	for (size_t i = 0; i < NSTRUCTS && !f; i++)
		if (strcmp(structs[i].ctype, ctype) == 0)
			f = structs[i].f;
	for (size_t i = 0; f && i < sizeof masks / sizeof masks[0]; i++)
		if (masks[i].f == f)
			mask = masks[i].mask;
	if (!f)
		return unknown_ctype(L, ctype, false);
	lua_newtable(L);
	for (int i = 1; f->name; f++, i++) {
		lua_createtable(L, 0, 6);
		set_str(L, "name", f->name);
		set_str(L, "type", type_names[f->type]);
		set_str(L, "c", f->cname ? f->cname : f->name);
		if (f->type == VT_INT || f->type == VT_UINT)
			push_range(L, f);
		if (f->en)
			set_str(L, "enum", f->en->ctype);
		if (f->sub)
			set_str(L, "struct", struct_name(f->sub));
		if (f->cls)
			set_str(L, "class", f->cls->kind);
		if (f->no_output) {
			lua_pushboolean(L, 1);
			lua_setfield(L, -2, "input_only");
		}
		if (mask && f->bit) {
			const char *bit = venum_name(mask, (int64_t)f->bit);
			if (bit)
				lua_pushfstring(L, "%s%s", mask->prefix, bit);
			else
				lua_pushinteger(L, (lua_Integer)f->bit);
			lua_setfield(L, -2, "mask");
		}
		lua_rawseti(L, -2, i);
	}
	return 1;
}

/* verbs.enum(ctype) -> { ctype=, prefix=, flags=, names = {...}, values = { NAME = n } };
 * an error for an unknown ctype. */
static int l_enum(lua_State *L)
{
	luaL_checkstring(L, 1);
	const char *ctype = marsh_check_cstring(L, 1, 1, "C type");
	if (strncmp(ctype, "enum ", 5) == 0)
		ctype += 5;
	const struct venum *t = venum_find(ctype);
	if (!t)
		return unknown_ctype(L, ctype, true);
	lua_createtable(L, 0, 5);
	set_str(L, "ctype", t->ctype);
	set_str(L, "prefix", t->prefix);
	lua_pushboolean(L, t->flags);
	lua_setfield(L, -2, "flags");
	lua_createtable(L, (int)t->n, 0);
	lua_createtable(L, 0, (int)t->n);
	for (size_t i = 0; i < t->n; i++) {
		lua_pushstring(L, t->e[i].name);
		lua_rawseti(L, -3, (lua_Integer)i + 1);
		lua_pushinteger(L, t->e[i].value);
		lua_setfield(L, -2, t->e[i].name);
	}
	lua_setfield(L, -3, "values");
	lua_setfield(L, -2, "names");
	return 1;
}

void fields_open(lua_State *L)
{
	lua_pushcfunction(L, l_fields);
	lua_setfield(L, -2, "fields");
	lua_pushcfunction(L, l_enum);
	lua_setfield(L, -2, "enum");
}
