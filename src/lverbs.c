/* The "verbs" module: entry point shared by ./verbsh and ./verbs.so. */
#include <string.h>
#include "verbsh.h"
#include "wire.h"
#include "embedded.h"

/* What lazy_index answers besides the module's own fields. */
static const char *const lazy[] = { "enums", "oob", "explain", "wire", "record", "export_c", "trace" };
#define NLAZY ((int)(sizeof lazy / sizeof lazy[0]))

/* verbs.opne is a typo, never a silent nil (README "When you get it
 * wrong"), at the prompt, in scripts and under verbs.strict alike: the
 * closest name of the module, and for the name of a C function
 * (ibv_open_device) the verbsh form that calls it, as help knows it. The
 * shell's Tab completion reads verbs raw and never gets here. */
static int no_such_name(lua_State *L, const char *k)
{
	struct vsuggest s;
	/* help's c_function(k) (lua/help.lua): the C function k names, its
	 * verbsh form, and the field of verbs that is that form */
	lua_pushstring(L, k);
	if (vpcall(L, "verbs.help", "c_function", 1, 3) == LUA_OK && lua_type(L, -3) == LUA_TSTRING) {
		const char *cname = lua_tostring(L, -3), *form = lua_tostring(L, -2);
		if (lua_type(L, -1) == LUA_TSTRING)
			return luaL_error(L, "verbs has no field '%s'; did you mean '%s'? (C's %s is %s in verbsh)", k,
					  lua_tostring(L, -1), cname, form);
		return luaL_error(L, "verbs has no field '%s'; C's %s is a method in verbsh: %s (help \"%s\")", k,
				  cname, form, cname);
	}
	lua_settop(L, 2);
	vsuggest_init(&s, k);
	for (int i = 0; i < NLAZY; i++)
		vsuggest_offer(&s, lazy[i]);
	lua_pushnil(L);
	while (lua_next(L, 1)) {   /* the table keeps each key alive, so `best` may point into it */
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING)
			vsuggest_offer(&s, lua_tostring(L, -1));
	}
	if (vsuggest_best(&s))
		return luaL_error(L, "verbs has no field '%s'; did you mean '%s'?", k, vsuggest_best(&s));
	return luaL_error(L, "verbs has no field '%s' (help() gives the overview; help \"%s\" looks the name "
			  "up)", k, k);
}

/* Lua modules that verbs.X loads on first use, so that verbs.oob does not
 * pull in LuaSocket for users who never touch it, nor verbs.wire its
 * decoder; and verbs.enums, the name lists of every enum, built when first
 * read (a tenth of start-up else). */
static int lazy_index(lua_State *L)
{
	if (lua_type(L, 2) != LUA_TSTRING)
		return 0;   /* verbs[1]: not a name */
	const char *k = lua_tostring(L, 2);
	if (strcmp(k, "enums") == 0) {
		venum_open(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, 1, k);
		return 1;
	}
	if (strcmp(k, "record") == 0 || strcmp(k, "export_c") == 0 || strcmp(k, "trace") == 0) {
		/* verbs.record(on), verbs.export_c(path) and verbs.trace(on):
		 * functions of the recorder's Lua modules. The recorder wraps
		 * verbs.open of this very table (a state may hold two, after
		 * package.loaded.verbs = nil). */
		lua_pushvalue(L, 1);
		vcall(L, "verbs.record", "adopt", 1, 0);
		vrequire(L, lua_pushfstring(L, "verbs.%s", k));
		lua_getfield(L, -1, k);
		lua_pushvalue(L, -1);
		lua_setfield(L, 1, k);
		return 1;
	}
	if (strcmp(k, "oob") != 0 && strcmp(k, "explain") != 0 && strcmp(k, "wire") != 0)
		return no_such_name(L, k);
	vrequire(L, lua_pushfstring(L, "verbs.%s", k));
	if (strcmp(k, "explain") == 0) {
		/* verbs.explain(x) is the module's explain, its result shown as
		 * text at the prompt (verbs.pretty.text_results) */
		lua_getfield(L, -1, "explain");
		vcall(L, "verbs.pretty", "text_results", 1, 1);
	}
	lua_pushvalue(L, -1);
	lua_setfield(L, 1, k);
	return 1;
}

/* Every table verbsh reads or gives, by the C type it stands for, for
 * verbs.fields (fields.c); with the C mask enum of the structs whose
 * fields' bits are one. */
static const struct vstruct structs[] = {
	{ "ibv_qp_attr", vf_qp_attr, &ve_qp_attr_mask },
	{ "ibv_qp_init_attr", vf_qp_init_attr, NULL },
	{ "ibv_qp_init_attr_ex", vf_qp_init_attr_ex, &ve_qp_init_attr_mask },
	{ "ibv_qp_cap", vf_qp_cap, NULL },
	{ "ibv_ah_attr", vf_ah_attr, NULL },
	{ "ibv_global_route", vf_global_route, NULL },
	{ "ibv_send_wr", vf_send_wr, NULL },
	{ "ibv_recv_wr", vf_recv_wr, NULL },
	{ "ibv_sge", vf_sge, NULL },
	{ "ibv_send_wr.wr.rdma", vf_wr_rdma, NULL },
	{ "ibv_send_wr.wr.atomic", vf_wr_atomic, NULL },
	{ "ibv_send_wr.wr.ud", vf_wr_ud, NULL },
	{ "ibv_send_wr.bind_mw", vf_wr_bind_mw, NULL },
	{ "ibv_mw_bind", vf_mw_bind, NULL },
	{ "ibv_mw_bind_info", vf_mw_bind_info, NULL },
	{ "ibv_srq_attr", vf_srq_attr, &ve_srq_attr_mask },
	{ "ibv_cq_init_attr_ex", vf_cq_init_attr_ex, &ve_cq_init_attr_mask },
	{ "ibv_create_cq options", vf_cq_opts, NULL },
	{ "rdma_conn_param", vf_conn_param, NULL },
	{ "rdma_cm_join_mc_attr_ex", vf_join_mc_attr_ex, NULL },
	{ "rdma_addrinfo", vf_rdma_addrinfo, NULL },
	{ "ibv_wc", vf_wc, NULL },
	{ "ibv_device_attr", vf_device_attr, NULL },
	{ "ibv_port_attr", vf_port_attr, NULL },
	{ "ibv_srq_init_attr_ex", vf_srq_init_attr_ex, NULL },
	{ "ibv_tm_cap", vf_tm_cap, NULL },
};

/* The only symbol verbs.so exports (the Makefile hides the rest). */
__attribute__((visibility("default"))) int luaopen_verbs(lua_State *L)
{
	embedded_lua_preload(L);
	lua_newtable(L);
	context_open(L);
	pd_open(L);
	cq_open(L);
	qp_open(L);
	srq_open(L);
	mw_open(L);
	cm_open(L);
	cm_ep_open(L);
	wr_open(L);
	wc_open(L);
	cq_ex_open(L);
	wait_open(L);
	fields_open(L, structs, sizeof structs / sizeof structs[0]);
	sysinfo_open(L);
	capture_open(L);
	wire_open(L);
	suggest_open(L);
	warn_open(L);
	verrno_open(L);
	api_rest_open(L);
	devonly_open(L);
	cm_rest_open(L);
	lua_pushvalue(L, -1);   /* for vargerror's names */
	lua_setfield(L, LUA_REGISTRYINDEX, "verbs.module");
	lua_newtable(L);
	lua_pushcfunction(L, lazy_index);
	lua_setfield(L, -2, "__index");
	/* what lazy_index answers, for the shell's Tab completion (as an object's __fields) */
	lua_createtable(L, NLAZY, 0);
	for (int i = 0; i < NLAZY; i++) {
		lua_pushstring(L, lazy[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "__fields");
	lua_setmetatable(L, -2);
	return 1;
}
