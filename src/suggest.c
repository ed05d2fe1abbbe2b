/* "Did you mean": the closest valid name to one that was mistyped, written
 * once for unknown table keys, enum names and object fields. */
#include <ctype.h>
#include <string.h>
#include "core.h"

/* Optimal-string-alignment distance, case-insensitive, capped at 9 (names
 * further apart than that are never suggested). */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 40 || lb > 40)
		return 9;
	int d[41][41];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb] < 9 ? d[la][lb] : 9;
}

/* C habits and other names that no edit distance finds. */
static const struct { const char *typed, *meant; } aliases[] = {
	{ "dest_qp", "dest_qp_num" }, { "dqpn", "dest_qp_num" }, { "qpn", "qp_num" }, { "qp_number", "qp_num" },
	{ "access_flags", "qp_access_flags" }, { "access", "qp_access_flags" }, { "state", "qp_state" },
	{ "mtu", "path_mtu" }, { "psn", "sq_psn" }, { "imm", "imm_data" }, { "flags", "send_flags" },
	{ "sge", "sg_list" }, { "sgl", "sg_list" }, { "num_sge", "sg_list" }, { "qkey", "remote_qkey" },
	{ "remote_qp", "remote_qpn" }, { "retry_count", "retry_cnt" }, { "rnr_retry_count", "rnr_retry" },
	{ "gid_index", "sgid_index" }, { "dgid_index", "sgid_index" }, { "port", "port_num" }, { NULL, NULL },
};

void vsuggest_init(struct vsuggest *s, const char *typed)
{
	s->typed = typed;
	s->best = NULL;
	s->dist = 99;
}

void vsuggest_offer(struct vsuggest *s, const char *candidate)
{
	int d;
	for (int i = 0; aliases[i].typed; i++)
		if (strcmp(aliases[i].typed, s->typed) == 0 && strcmp(aliases[i].meant, candidate) == 0) {
			s->best = candidate;
			s->dist = 0;
			return;
		}
	d = distance(s->typed, candidate);
	size_t lt = strlen(s->typed), lc = strlen(candidate);
	/* "sq_sig" for "sq_sig_all": a prefix of 3 or more letters counts as close */
	if (lt >= 3 && lc > lt && strncasecmp(candidate, s->typed, lt) == 0 && d > 2)
		d = 2;
	int limit = lt <= 3 ? 1 : lt <= 6 ? 2 : 3;
	if (d <= limit && d < s->dist) {
		s->best = candidate;
		s->dist = d;
	}
}

const char *vsuggest_best(const struct vsuggest *s) { return s->best; }

/* verbs.suggest(typed, {names...}) -> the closest name, or nil: the same
 * rule for the shell's undefined globals as for keys and enum names. */
static int l_suggest(lua_State *L)
{
	struct vsuggest s;
	vsuggest_init(&s, luaL_checkstring(L, 1));
	luaL_checktype(L, 2, LUA_TTABLE);
	lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
	for (lua_Integer i = 1; i <= n; i++) {
		/* the list keeps each string alive, so `best` may point into it */
		if (lua_rawgeti(L, 2, i) == LUA_TSTRING)
			vsuggest_offer(&s, lua_tostring(L, -1));
		lua_pop(L, 1);
	}
	if (!vsuggest_best(&s))
		return lua_pushnil(L), 1;
	lua_pushstring(L, vsuggest_best(&s));
	return 1;
}

void suggest_open(lua_State *L)
{
	lua_pushcfunction(L, l_suggest);
	lua_setfield(L, -2, "suggest");
}
