/* verbs.fields and verbs.enum: the marshaller's own descriptors, seen from
 * Lua. help() builds its lists of keys from them, and the shell's Tab
 * completion offers them, so neither can drift from what the marshaller
 * accepts. */
#include <string.h>
#include "core.h"

/* The structs described (fields_open's list): upvalues 1 and 2 of
 * verbs.fields and verbs.enum. */
struct structs {
	const struct vstruct *s;
	size_t n;
};
static struct structs structs_of(lua_State *L)
{
	struct structs l = { lua_touserdata(L, lua_upvalueindex(1)), (size_t)lua_tointeger(L, lua_upvalueindex(2)) };
	return l;
}

static const char *struct_name(const struct structs *l, const struct vfield *f)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->s[i].f == f)
			return l->s[i].ctype;
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
	struct structs l = structs_of(L);
	struct vsuggest s;
	vsuggest_init(&s, ctype);
	if (want_enum) {
		if (venum_find(ctype) == NULL)
			for (size_t i = 0; i < l.n; i++)
				if (strcmp(l.s[i].ctype, ctype) == 0)
					return vargerror(L, 1, lua_pushfstring(L, "%s is a struct, not an enum: "
						"verbs.fields(\"%s\") gives its keys", ctype, ctype));
		for (size_t i = 0; venum_at(i); i++)
			vsuggest_offer(&s, venum_at(i)->ctype);
	} else {
		if (venum_find(ctype))
			return vargerror(L, 1, lua_pushfstring(L, "%s is an enum, not a struct: verbs.enum(\"%s\") "
				"gives its names and values", ctype, ctype));
		for (size_t i = 0; i < l.n; i++)
			vsuggest_offer(&s, l.s[i].ctype);
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
 * input_only=, mask=, bit= }, in the C struct's order; an error for an unknown
 * ctype. mask: the C name of the bit the key sets in the verb's mask
 * ("IBV_QP_PATH_MTU"), the very bit the binding ORs in; bit: its value. */
static int l_fields(lua_State *L)
{
	struct structs l = structs_of(L);
	if (lua_isnoneornil(L, 1)) {
		lua_createtable(L, (int)l.n, 0);
		for (size_t i = 0; i < l.n; i++) {
			lua_pushstring(L, l.s[i].ctype);
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
	for (size_t i = 0; i < l.n && !f; i++)
		if (strcmp(l.s[i].ctype, ctype) == 0) {
			f = l.s[i].f;
			mask = l.s[i].mask;
		}
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
			set_str(L, "struct", struct_name(&l, f->sub));
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
			set_int(L, "bit", (lua_Integer)f->bit);   /* the one key->mask source for Lua */
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

void fields_open(lua_State *L, const struct vstruct *list, size_t n)
{
	lua_pushlightuserdata(L, (void *)list);
	lua_pushinteger(L, (lua_Integer)n);
	lua_pushcclosure(L, l_fields, 2);
	lua_setfield(L, -2, "fields");
	lua_pushlightuserdata(L, (void *)list);
	lua_pushinteger(L, (lua_Integer)n);
	lua_pushcclosure(L, l_enum, 2);
	lua_setfield(L, -2, "enum");
}
