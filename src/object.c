/* The object layer: a userdata per verbs object, in the style of liolib and
 * LuaSocket's auxiliar.c.
 *
 * The userdata holds only a pointer to a malloc'd struct vnode. A node keeps
 * its handle until it is destroyed explicitly (qp:destroy()) or until both its
 * userdata is finalized and no live object uses it any more. So a PD whose
 * userdata is collected before its QPs (lua_close finalizes in any order) is
 * deallocated only after the last QP is destroyed, and never twice. The user
 * values of a child's userdata hold its parents, so that the GC sees them as
 * reachable while the child is. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "core.h"

static const char OBJECTS[] = "verbs.objects";

/* What one Lua state holds of the object layer: the list of its nodes, and
 * the ids handed out per class (qp1, qp2, ... in traces). It lives in a
 * userdata in that state's registry, so two states (or a state closed while
 * another goes on) share nothing; its memory outlives every finalizer, which
 * lua_close runs before it frees any object. */
static const char STATE_KEY = 0;   /* its registry key: this byte's address */

struct vstate *vstate(lua_State *L)
{
	lua_rawgetp(L, LUA_REGISTRYINDEX, &STATE_KEY);
	struct vstate *s = lua_touserdata(L, -1);
	lua_pop(L, 1);
	if (!s) {
		s = lua_newuserdatauv(L, sizeof *s, 0);
		memset(s, 0, sizeof *s);
		s->all.next = s->all.prev = &s->all;
		s->changes = 1;
		lua_rawsetp(L, LUA_REGISTRYINDEX, &STATE_KEY);
	}
	return s;
}

/* Every node of this state, live or destroyed. */
bool vobj_push(lua_State *L, struct vnode *n)
{
	if (!n)   /* nothing pushed: the caller's stack stays as it was */
		return false;
	lua_getfield(L, LUA_REGISTRYINDEX, OBJECTS);
	if (lua_rawgetp(L, -1, n) == LUA_TNIL) {
		lua_pop(L, 2);
		return false;
	}
	lua_remove(L, -2);
	return true;
}

struct vnode *vobj_find(lua_State *L, void *h)
{
	if (!h)
		return NULL;
	FOR_NODES(L, n)
		if (n->h == h)
			return n;
	return NULL;
}

bool vobj_live_handle(lua_State *L, const struct vclass *cls, const void *h)
{
	FOR_NODES(L, n)
		if (n->cls == cls && n->h == h && h)
			return true;
	return false;
}

const char *vobj_gone(const struct vclass *cls)
{
	return cls->gone ? cls->gone : "destroyed";
}

const char *vobj_cname(struct vnode *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%u", n->cls->var, n->id);
	return buf;
}

/* The userdata on the top gets its class's metatable; a class with live
 * fields, a copy of it whose __index is the object's own methods table
 * (the class's methods, [0] = the object, and __fields_meta as metatable). */
static void set_metatable(lua_State *L, const struct vclass *cls)
{
	int obj = lua_gettop(L);
	luaL_getmetatable(L, cls->tname);
	int cmt = obj + 1;
	if (!cls->field) {
		lua_setmetatable(L, obj);
		return;
	}
	lua_getfield(L, cmt, "__methods");
	int methods = obj + 2;
	lua_createtable(L, 0, 0);   /* the object's methods */
	lua_pushnil(L);
	while (lua_next(L, methods)) {
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, obj + 3);
	}
	lua_pushvalue(L, obj);
	lua_rawseti(L, obj + 3, 0);
	lua_getfield(L, cmt, "__fields_meta");
	lua_setmetatable(L, obj + 3);
	lua_createtable(L, 0, 8);   /* the object's metatable: the class's, but __index */
	lua_pushnil(L);
	while (lua_next(L, cmt)) {
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, obj + 4);
	}
	lua_pushvalue(L, obj + 3);
	lua_setfield(L, obj + 4, "__index");
	lua_setmetatable(L, obj);
	lua_settop(L, obj);
}

struct vnode *vobj_new(lua_State *L, const struct vclass *cls, int ndeps, const int *deps)
{
	struct vstate *s = vstate(L);
	struct vud *ud = lua_newuserdatauv(L, sizeof *ud, ndeps > 0 ? ndeps : 1);
	struct vnode *n;

	ud->n = NULL;
	ud->cls = cls;
	n = calloc(1, cls->size ? cls->size : sizeof *n);
	if (!n)
		luaL_error(L, "out of memory");
	n->cls = cls;
	n->st = s;
	n->lua_alive = true;
	n->id = ++s->ids[cls->index];
	n->next = &s->all;
	n->prev = s->all.prev;
	s->all.prev->next = n;
	s->all.prev = n;
	ud->n = n;
	set_metatable(L, cls);
	/* node -> userdata, so that an event naming a handle can give back its object */
	if (!luaL_getsubtable(L, LUA_REGISTRYINDEX, OBJECTS)) {
		lua_pushliteral(L, "v");
		lua_setfield(L, -2, "__mode");
		lua_pushvalue(L, -1);
		lua_setmetatable(L, -2);
	}
	lua_pushvalue(L, -2);
	lua_rawsetp(L, -2, n);
	lua_pop(L, 1);
	for (int i = 0; i < ndeps && i < VN_MAXDEPS; i++) {
		if (!deps[i] || lua_isnoneornil(L, deps[i]))
			continue;
		n->deps[i] = ((struct vud *)lua_touserdata(L, deps[i]))->n;
		lua_pushvalue(L, deps[i]);
		lua_setiuservalue(L, -2, i + 1);
	}
	return n;
}

/* The deps are counted as used only once the handle exists: a node whose
 * creation failed holds nothing. */
void vobj_set(struct vnode *n, void *h)
{
	n->h = h;
	for (int i = 0; i < VN_MAXDEPS; i++)
		if (n->deps[i])
			n->deps[i]->users++;
}

static void maybe_free(lua_State *L, struct vnode *n);

void vobj_replace_dep(lua_State *L, int self, int i, int idx)
{
	struct vnode *n = ((struct vud *)lua_touserdata(L, self))->n, *old = n->deps[i];
	struct vnode *d = ((struct vud *)lua_touserdata(L, idx))->n;
	lua_pushvalue(L, idx);
	lua_setiuservalue(L, self, i + 1);   /* the new one stays alive as long as n */
	n->deps[i] = d;
	d->users++;
	if (old) {
		old->users--;
		maybe_free(L, old);   /* collected already, and n was its last user */
	}
}

void vobj_changed(struct vnode *n) { n->st->changes++; }

/* The verb that destroys n: a device object's is its kind's. */
static const char *destroy_verb(struct vnode *n)
{
	return n->cls->destroy_verb_of ? n->cls->destroy_verb_of(n) : n->cls->destroy_verb;
}

static void release_deps(lua_State *L, struct vnode *n)
{
	for (int i = 0; i < VN_MAXDEPS; i++) {
		struct vnode *d = n->deps[i];
		if (!d)
			continue;
		n->deps[i] = NULL;
		d->users--;
		maybe_free(L, d);
	}
}

/* The last reference went away: destroy quietly (nothing can be raised from
 * a finalizer), then let go of the parents. */
static void maybe_free(lua_State *L, struct vnode *n)
{
	if (n->lua_alive || n->users)
		return;
	if (n->h) {
		char name[32];
		int err = n->cls->destroy(n);
		if (err)   /* a finalizer cannot raise, but a leak is never silent */
			fprintf(stderr, "verbsh: garbage-collected %s: %s failed: %s (%s); its resources leak until the "
				"process exits\n", vobj_cname(n, name, sizeof name), destroy_verb(n),
				verrname(err) ? verrname(err) : "?", strerror(err));
		n->h = NULL;
		n->st->changes++;
		release_deps(L, n);
	}
	n->prev->next = n->next;
	n->next->prev = n->prev;
	free(n);
}

void vobj_unuse(lua_State *L, struct vnode *n)
{
	n->users--;
	maybe_free(L, n);
}

struct vnode **vud_test(lua_State *L, int idx, const struct vclass *cls)
{
	struct vud *u = lua_touserdata(L, idx);
	if (!u || lua_rawlen(L, idx) != sizeof *u || u->cls != cls)
		return NULL;
	return &u->n;
}

unsigned long vobj_changes(const struct vnode *n)
{
	return n->st->changes;
}

static struct vnode *node_at(lua_State *L, int idx, const struct vclass *cls)
{
	struct vnode **ud = vud_test(L, idx, cls);
	return ud ? *ud : NULL;
}

struct vnode *vobj_test(lua_State *L, int idx, const struct vclass *cls)
{
	return node_at(L, idx, cls);
}

const char *vobj_why(lua_State *L, int idx, const struct vclass *cls, struct vnode **out)
{
	struct vnode **ud = vud_test(L, idx, cls);
	*out = NULL;
	if (!ud)
		return vpush_expected(L, idx, cls->tname);
	if (!*ud)
		return lua_pushfstring(L, "%s was finalized (its __gc was called)", cls->kind);
	if (!(*ud)->h)
		return lua_pushfstring(L, "%s is %s", cls->kind, vobj_gone(cls));
	*out = *ud;
	return NULL;
}

/* vobj_check's other cases (verbsh.h has the live one): raises why. */
struct vnode *vobj_check_fail(lua_State *L, int idx, const struct vclass *cls)
{
	struct vnode *n;
	const char *why = vobj_why(L, idx, cls, &n);
	if (why) {
		if (idx == 1 && node_at(L, idx, cls))
			luaL_error(L, "%s", why);   /* "qp is destroyed" */
		vargerror(L, idx, why);
	}
	return n;
}

struct vnode *vobj_field(lua_State *L, int arg, int tidx, const char *key, const struct vclass *cls, void *slot)
{
	struct vnode *n = NULL;
	tidx = lua_absindex(L, tidx);
	lua_pushstring(L, key);
	if (lua_rawget(L, tidx) != LUA_TNIL) {
		const char *why = vobj_why(L, -1, cls, &n);
		if (why)
			vargerror(L, arg, lua_pushfstring(L, "key '%s': %s", key, why));
	}
	if (slot)
		*(void **)slot = n ? n->h : NULL;
	return n;
}

void vobj_recheck(lua_State *L, int arg, struct vnode *const *nodes, int count)
{
	char name[32];
	for (int i = 0; i < count; i++)
		if (nodes[i] && !nodes[i]->h)
			vargerror(L, arg, lua_pushfstring(L, "%s was %s while this call was being prepared (by a __gc "
				"metamethod?)", vobj_cname(nodes[i], name, sizeof name), vobj_gone(nodes[i]->cls)));
}

struct vnode *vobj_context(struct vnode *n)
{
	while (n && n->cls->index != VC_CONTEXT)
		n = n->deps[0];   /* pd -> context, qp/mr/srq/ah -> pd, cq/channel -> context */
	return n;
}

/* Pushes "key 'k': mr2 belongs to ctx2, but qp1 belongs to ctx1" (", not
 * to ctx1" when owner is the context; no key part when key is NULL). */
static void push_other_context(lua_State *L, const char *key, struct vnode *obj, struct vnode *owner)
{
	struct vnode *a = vobj_context(obj), *b = vobj_context(owner);
	char x[32], y[32], cx[32] = "another context", cy[32] = "another context";
	vobj_cname(obj, x, sizeof x);
	if (a)
		vobj_cname(a, cx, sizeof cx);
	if (b)
		vobj_cname(b, cy, sizeof cy);
	if (owner == b)
		lua_pushfstring(L, "%s%s%s%s belongs to %s, not to %s", key ? "key '" : "", key ? key : "",
				key ? "': " : "", x, cx, cy);
	else
		lua_pushfstring(L, "%s%s%s%s belongs to %s, but %s belongs to %s", key ? "key '" : "", key ? key : "",
				key ? "': " : "", x, cx, vobj_cname(owner, y, sizeof y), cy);
}

void vobj_same_context(lua_State *L, int arg, const char *key, struct vnode *obj, struct vnode *owner)
{
	struct vnode *a = vobj_context(obj), *b = vobj_context(owner);
	char cy[32];
	if (!obj || !a || !b || a->h == b->h)
		return;
	push_other_context(L, key, obj, owner);
	vargerror(L, arg, lua_pushfstring(L, "%s: the kernel looks handles up in the context of the call, so it "
		"would use another object of %s; use a %s of %s", lua_tostring(L, -1), vobj_cname(b, cy, sizeof cy),
		obj->cls->kind, cy));
}

void vobj_wr_context(lua_State *L, int arg, const char *key, struct vnode *obj, struct vnode *owner)
{
	struct vnode *b = vobj_context(owner);
	char cy[32] = "its context";
	if (b)
		vobj_cname(b, cy, sizeof cy);
	push_other_context(L, key, obj, owner);
	vargerror(L, arg, lua_pushfstring(L, "%s: the device looks a posted WR's lkeys and AH up in the context of "
		"the %s it is posted to, where they name nothing or another object: the WR would complete in error, "
		"its QP going to ERR; use a %s of %s", lua_tostring(L, -1), owner->cls->kind, obj->cls->kind, cy));
}

bool vobj_other_context(struct vnode *obj, struct vnode *owner)
{
	struct vnode *a = vobj_context(obj), *b = vobj_context(owner);
	return a && b && a->h != b->h;
}

/* "qp RC 0x000011 RTS" */
static void push_tostring(lua_State *L, struct vnode *n)
{
	if (!n->h) {
		lua_pushfstring(L, "%s (%s)", n->cls->kind, vobj_gone(n->cls));
		return;
	}
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	luaL_addstring(&b, n->cls->kind);
	luaL_addchar(&b, ' ');
	n->cls->describe(L, n);
	luaL_addvalue(&b);
	luaL_pushresult(&b);
}

/* "qp1 (qp RC 0x000011 RTS), mr2 (mr 4096 bytes lkey 0x1234)"; *how is
 * the users' destroy method when they share one ("ack" for cm events). */
static int push_users(lua_State *L, struct vnode *n, const char **how)
{
	luaL_Buffer b;
	char name[32];
	int k = 0;
	luaL_buffinit(L, &b);
	FOR_NODES(L, m) {
		bool uses = false;
		for (int i = 0; i < VN_MAXDEPS; i++)
			uses |= m->deps[i] == n;
		if (!uses || !m->h)
			continue;
		const char *method = m->cls->destroy_method;
		if (k == 0)
			*how = method;   /* all alike: "dereg it", "ack them" */
		else if (strcmp(*how, method) != 0)
			*how = strcmp(method, "ack") == 0 || strstr(*how, "ack") ? "ack or destroy" : "destroy";
		if (k++)
			luaL_addstring(&b, ", ");
		luaL_addstring(&b, vobj_cname(m, name, sizeof name));
		luaL_addstring(&b, " (");
		push_tostring(L, m);
		luaL_addvalue(&b);
		luaL_addstring(&b, ")");
	}
	luaL_pushresult(&b);
	return k;
}

/* A __gc metamethod (of the user's) runs whenever Lua allocates, also in the
 * middle of a binding that holds handles: the name of that binding, if so. */
static const char *finalizer_inside_binding(lua_State *L)
{
	lua_Debug ar;
	for (int level = 1; lua_getstack(L, level, &ar); level++)
		if (lua_getinfo(L, "n", &ar) && ar.namewhat && strcmp(ar.namewhat, "metamethod") == 0 && ar.name &&
		    strcmp(ar.name, "__gc") == 0)
			return vbinding_at(L, level + 1);
	return NULL;
}

static int obj_destroy(lua_State *L)
{
	const struct vclass *cls = lua_touserdata(L, lua_upvalueindex(1));
	struct vnode *n = vobj_check(L, 1, cls);
	int err;
	if (lua_gettop(L) > 1) {   /* qp:destroy(true): every destroy takes no arguments */
		char form[64];
		snprintf(form, sizeof form, "%s:%s()", cls->var, cls->destroy_method);
		vnoextra(L, 1, form, NULL);
	}

	const char *inside = finalizer_inside_binding(L);
	if (inside)
		return luaL_error(L, "%s: not from a __gc metamethod that the garbage collector runs inside '%s': "
				  "that binding still uses its objects; destroy after it returned", cls->destroy_method, inside);

	const char *refused = cls->refuse_destroy ? cls->refuse_destroy(n) : NULL;
	if (refused)
		return luaL_error(L, "%s: %s", cls->destroy_method, refused);
	/* Users that are garbage are users no more once collected: collect them
	 * first, so that whether (and with which list) a destroy is refused does
	 * not depend on when the collector last ran. lua_gc does nothing inside
	 * a finalizer. */
	if (n->users || (cls->collect_first && cls->collect_first(n)))
		lua_gc(L, LUA_GCCOLLECT);
	if (n->users) {
		char name[32];
		const char *how = "destroy";
		int k = push_users(L, n, &how);   /* a QP using one CQ twice counts once */
		return luaL_error(L, "%s: %s is still used by %d object%s: %s; %s %s first",
				  cls->destroy_method, vobj_cname(n, name, sizeof name), k,
				  k == 1 ? "" : "s", lua_tostring(L, -1), how, k == 1 ? "it" : "them");
	}
	err = cls->destroy(n);
	if (err)
		return vraise(L, destroy_verb(n), err, 1, 0);
	n->h = NULL;
	n->st->changes++;   /* prepared WRs that name it are checked again */
	release_deps(L, n);
	return 0;
}

/* The object at 1 of a metamethod, which Lua passes right but a user may
 * call by hand (getmetatable(pd).__tostring(5)): another class's userdata, a
 * table or a number is an error, never memory read as a node. NULL: the
 * userdata was finalized. */
static struct vnode **self_ud(lua_State *L, const char *mm)
{
	const struct vclass *cls = lua_touserdata(L, lua_upvalueindex(1));
	struct vnode **ud = vud_test(L, 1, cls);
	if (!ud)
		luaL_error(L, "%s of %s: self must be a %s, got %s", mm, cls->tname, cls->tname, vwhat_is(L, 1));
	return ud;
}

static int obj_gc(lua_State *L)
{
	struct vnode **ud = self_ud(L, "__gc");
	struct vnode *n = *ud;
	if (!n)
		return 0;
	*ud = NULL;
	n->st->changes++;   /* a prepared WR naming it must look again */
	n->lua_alive = false;
	maybe_free(L, n);
	return 0;
}

/* To-be-closed: the same as the destroy method, and a no-op once destroyed. */
static int obj_close(lua_State *L)
{
	const struct vclass *cls = lua_touserdata(L, lua_upvalueindex(1));
	struct vnode **ud = self_ud(L, "__close");
	if (!*ud || !(*ud)->h)
		return 0;
	lua_settop(L, 1);
	lua_pushlightuserdata(L, (void *)cls);
	lua_pushcclosure(L, obj_destroy, 1);
	lua_insert(L, 1);
	lua_call(L, 1, 0);
	return 0;
}

static int obj_tostring(lua_State *L)
{
	struct vnode **ud = self_ud(L, "__tostring");
	if (!*ud)
		return lua_pushliteral(L, "(finalized verbs object)"), 1;
	push_tostring(L, *ud);
	return 1;
}

/* qp.qpnum is a typo, never a silent nil: "qp has no field 'qpnum'; did you
 * mean 'qp_num'?", the closest of the class's fields and methods. */
static int no_such_field(lua_State *L, const struct vclass *cls, const char *key)
{
	struct vsuggest s;
	vsuggest_init(&s, key);
	for (int i = 0; cls->fields && cls->fields[i]; i++)
		vsuggest_offer(&s, cls->fields[i]);
	lua_pushnil(L);
	while (lua_next(L, lua_upvalueindex(2))) {
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING)
			vsuggest_offer(&s, lua_tostring(L, -1));
	}
	if (vsuggest_best(&s))
		return luaL_error(L, "%s has no field '%s'; did you mean '%s'?", cls->kind, key, vsuggest_best(&s));
	return luaL_error(L, "%s has no field or method '%s' (help(%s) lists them)", cls->kind, key, cls->kind);
}

/* The methods table's own __index, for classes without live fields. */
static int method_missing(lua_State *L)
{
	if (lua_type(L, 2) != LUA_TSTRING)
		return lua_pushnil(L), 1;
	return no_such_field(L, lua_touserdata(L, lua_upvalueindex(1)), lua_tostring(L, 2));
}

/* A live field (qp.state): the object's methods table missed the key, and
 * Lua calls this with that table, whose [0] is the object. Called by hand
 * with anything else, it is an error, never memory read as a node. */
static int field_index(lua_State *L)
{
	const struct vclass *cls = lua_touserdata(L, lua_upvalueindex(1));
	if (!lua_istable(L, 1) || lua_rawgeti(L, 1, 0) == LUA_TNIL || !vud_test(L, -1, cls))
		return luaL_error(L, "__index of %s's methods: a table of a %s's own methods expected, got %s",
				  cls->tname, cls->kind, vwhat_is(L, 1));
	lua_replace(L, 1);   /* the object, then the key, as in an __index of the object itself */
	struct vnode **ud = vud_test(L, 1, cls);
	if (lua_type(L, 2) != LUA_TSTRING)
		return lua_pushnil(L), 1;
	if (!*ud || !(*ud)->h)
		return luaL_error(L, "%s is %s (reading '%s')", cls->kind, *ud ? vobj_gone(cls) : "finalized",
				  lua_tostring(L, 2));
	if (!marsh_cstring(L, 2))   /* "qp_num\0x" is not qp_num */
		return luaL_error(L, "%s has no field '%s' followed by a NUL byte", cls->kind, lua_tostring(L, 2));
	if (cls->field(L, *ud, lua_tostring(L, 2)))
		return 1;
	return no_such_field(L, cls, lua_tostring(L, 2));
}

/* obj.key = value: the few fields a C program assigns (qpx->wr_id). */
static int obj_newindex(lua_State *L)
{
	const struct vclass *cls = lua_touserdata(L, lua_upvalueindex(1));
	self_ud(L, "__newindex");
	struct vnode *n = vobj_check(L, 1, cls);
	const char *key = lua_tostring(L, 2);
	if (lua_type(L, 2) != LUA_TSTRING || !marsh_cstring(L, 2) || !cls->setfield(L, n, key, 3))
		return luaL_error(L, "%s has no settable field '%s'", cls->kind, luaL_tolstring(L, 2, NULL));
	return 0;
}

/* The registry's table of classes by type name ("verbs.qp" -> its class),
 * which verbs.cname trusts: a metatable's __name alone may be anyone's. */
static const char CLASSES[] = "verbs.classes";

/* The name of the verbs object at 1, as traces and messages give it ("qp3"),
 * or nothing: for the recorder (lua/record.lua), at registry["verbs.cname"]. */
static int l_cname(lua_State *L)
{
	char name[32];
	if (!lua_getmetatable(L, 1))
		return 0;
	lua_pushliteral(L, "__name");
	if (lua_rawget(L, -2) != LUA_TSTRING || lua_getfield(L, LUA_REGISTRYINDEX, CLASSES) != LUA_TTABLE)
		return 0;
	lua_pushvalue(L, -2);
	lua_rawget(L, -2);
	const struct vclass *cls = lua_touserdata(L, -1);
	struct vnode **ud = cls ? vud_test(L, 1, cls) : NULL;
	if (!ud || !*ud)
		return 0;
	lua_pushstring(L, vobj_cname(*ud, name, sizeof name));
	return 1;
}

/* The recorder's wrappers are Lua functions: a caller that tail-calls one
 * (return pd:reg_mr(x)) loses its own frame, and with it the line an error
 * should name. Wrapped in this C closure, the caller's frame stays, as it
 * does for a binding, which is a C function too. registry["verbs.cwrap"]. */
static int trampoline_done(lua_State *L, int status, lua_KContext ctx)
{
	(void)status, (void)ctx;
	return lua_gettop(L);   /* what the wrapper returned */
}

/* With a continuation: a trace function may yield (robust_trace.lua). */
static int trampoline(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, trampoline_done);
	return trampoline_done(L, LUA_OK, 0);
}

static int l_cwrap(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_settop(L, 1);
	lua_pushcclosure(L, trampoline, 1);
	return 1;
}

void vobj_register(lua_State *L, const struct vclass *cls)
{
	lua_pushcfunction(L, l_cwrap);
	lua_setfield(L, LUA_REGISTRYINDEX, "verbs.cwrap");
	luaL_getsubtable(L, LUA_REGISTRYINDEX, CLASSES);
	lua_pushlightuserdata(L, (void *)cls);
	lua_setfield(L, -2, cls->tname);
	lua_pop(L, 1);
	lua_pushcfunction(L, l_cname);
	lua_setfield(L, LUA_REGISTRYINDEX, "verbs.cname");
	luaL_newmetatable(L, cls->tname);
	/* methods */
	lua_newtable(L);
	luaL_setfuncs(L, cls->methods, 0);
	if (cls->more_methods)
		luaL_setfuncs(L, cls->more_methods, 0);
	lua_pushlightuserdata(L, (void *)cls);
	lua_pushcclosure(L, obj_destroy, 1);
	lua_setfield(L, -2, cls->destroy_method);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, "__methods");
	luaL_getsubtable(L, LUA_REGISTRYINDEX, VMETHOD_TABLES);
	lua_pushvalue(L, -2);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pop(L, 1);
	if (cls->field) {
		/* Each object gets its own metatable whose __index is its own copy
		 * of the methods (vobj_new): a method is found by a table read, with
		 * no C call. Its copy's metatable, this one, reaches the fields. */
		lua_createtable(L, 0, 1);
		lua_pushlightuserdata(L, (void *)cls);
		lua_pushvalue(L, -3);
		lua_pushcclosure(L, field_index, 2);
		lua_setfield(L, -2, "__index");
		lua_setfield(L, -3, "__fields_meta");
	} else {
		/* __index is the methods table itself; a name it lacks is a typo */
		lua_createtable(L, 0, 1);
		lua_pushlightuserdata(L, (void *)cls);
		lua_pushvalue(L, -3);
		lua_pushcclosure(L, method_missing, 2);
		lua_setfield(L, -2, "__index");
		lua_setmetatable(L, -2);
	}
	lua_setfield(L, -2, "__index");
	if (cls->setfield) {
		lua_pushlightuserdata(L, (void *)cls);
		lua_pushcclosure(L, obj_newindex, 1);
		lua_setfield(L, -2, "__newindex");
	}
	/* __fields: the object's field names, for the shell's Tab completion */
	lua_newtable(L);
	for (int i = 0; cls->fields && cls->fields[i]; i++) {
		lua_pushstring(L, cls->fields[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "__fields");
	static const luaL_Reg meta[] = {
		{ "__gc", obj_gc }, { "__close", obj_close }, { "__tostring", obj_tostring }, { NULL, NULL }
	};
	lua_pushlightuserdata(L, (void *)cls);   /* each metamethod's upvalue: the class of its self */
	luaL_setfuncs(L, meta, 1);
	lua_pop(L, 1);
}
