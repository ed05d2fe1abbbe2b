/* Every C enum and flag set the bindings speak, written once: names without
 * their prefix, as the shell shows them and accepts them. verbs.enums exports
 * them keyed by C type name. */
#include <string.h>
#include <rdma/rdma_cma.h>
#include "core.h"

#define E(p, n) { #n, p##n }
#define TABLE(var, ct, pfx, fl, ...) \
	static const struct venum_entry var##_e[] = { __VA_ARGS__ }; \
	const struct venum var = { ct, pfx, fl, var##_e, sizeof(var##_e) / sizeof(var##_e[0]) };

TABLE(ve_qp_state, "ibv_qp_state", "IBV_QPS_", false,
	E(IBV_QPS_, RESET), E(IBV_QPS_, INIT), E(IBV_QPS_, RTR), E(IBV_QPS_, RTS), E(IBV_QPS_, SQD),
	E(IBV_QPS_, SQE), E(IBV_QPS_, ERR), E(IBV_QPS_, UNKNOWN))
TABLE(ve_qp_type, "ibv_qp_type", "IBV_QPT_", false,
	E(IBV_QPT_, RC), E(IBV_QPT_, UC), E(IBV_QPT_, UD), E(IBV_QPT_, RAW_PACKET), E(IBV_QPT_, XRC_SEND),
	E(IBV_QPT_, XRC_RECV), E(IBV_QPT_, DRIVER))
TABLE(ve_mtu, "ibv_mtu", "IBV_MTU_", false,
	{ "256", IBV_MTU_256 }, { "512", IBV_MTU_512 }, { "1024", IBV_MTU_1024 }, { "2048", IBV_MTU_2048 },
	{ "4096", IBV_MTU_4096 })
TABLE(ve_wc_status, "ibv_wc_status", "IBV_WC_", false,
	E(IBV_WC_, SUCCESS), E(IBV_WC_, LOC_LEN_ERR), E(IBV_WC_, LOC_QP_OP_ERR), E(IBV_WC_, LOC_EEC_OP_ERR),
	E(IBV_WC_, LOC_PROT_ERR), E(IBV_WC_, WR_FLUSH_ERR), E(IBV_WC_, MW_BIND_ERR), E(IBV_WC_, BAD_RESP_ERR),
	E(IBV_WC_, LOC_ACCESS_ERR), E(IBV_WC_, REM_INV_REQ_ERR), E(IBV_WC_, REM_ACCESS_ERR),
	E(IBV_WC_, REM_OP_ERR), E(IBV_WC_, RETRY_EXC_ERR), E(IBV_WC_, RNR_RETRY_EXC_ERR),
	E(IBV_WC_, LOC_RDD_VIOL_ERR), E(IBV_WC_, REM_INV_RD_REQ_ERR), E(IBV_WC_, REM_ABORT_ERR),
	E(IBV_WC_, INV_EECN_ERR), E(IBV_WC_, INV_EEC_STATE_ERR), E(IBV_WC_, FATAL_ERR),
	E(IBV_WC_, RESP_TIMEOUT_ERR), E(IBV_WC_, GENERAL_ERR), E(IBV_WC_, TM_ERR),
	E(IBV_WC_, TM_RNDV_INCOMPLETE))
TABLE(ve_wc_opcode, "ibv_wc_opcode", "IBV_WC_", false,
	E(IBV_WC_, SEND), E(IBV_WC_, RDMA_WRITE), E(IBV_WC_, RDMA_READ), E(IBV_WC_, COMP_SWAP),
	E(IBV_WC_, FETCH_ADD), E(IBV_WC_, BIND_MW), E(IBV_WC_, LOCAL_INV), E(IBV_WC_, TSO), E(IBV_WC_, RECV),
	E(IBV_WC_, RECV_RDMA_WITH_IMM))
TABLE(ve_wr_opcode, "ibv_wr_opcode", "IBV_WR_", false,
	E(IBV_WR_, RDMA_WRITE), E(IBV_WR_, RDMA_WRITE_WITH_IMM), E(IBV_WR_, SEND), E(IBV_WR_, SEND_WITH_IMM),
	E(IBV_WR_, RDMA_READ), E(IBV_WR_, ATOMIC_CMP_AND_SWP), E(IBV_WR_, ATOMIC_FETCH_AND_ADD),
	E(IBV_WR_, LOCAL_INV), E(IBV_WR_, BIND_MW), E(IBV_WR_, SEND_WITH_INV), E(IBV_WR_, TSO))
TABLE(ve_access, "ibv_access_flags", "IBV_ACCESS_", true,
	E(IBV_ACCESS_, LOCAL_WRITE), E(IBV_ACCESS_, REMOTE_WRITE), E(IBV_ACCESS_, REMOTE_READ),
	E(IBV_ACCESS_, REMOTE_ATOMIC), E(IBV_ACCESS_, MW_BIND), E(IBV_ACCESS_, ZERO_BASED),
	E(IBV_ACCESS_, ON_DEMAND), E(IBV_ACCESS_, HUGETLB), E(IBV_ACCESS_, RELAXED_ORDERING))
TABLE(ve_send_flags, "ibv_send_flags", "IBV_SEND_", true,
	E(IBV_SEND_, FENCE), E(IBV_SEND_, SIGNALED), E(IBV_SEND_, SOLICITED), E(IBV_SEND_, INLINE),
	E(IBV_SEND_, IP_CSUM))
TABLE(ve_wc_flags, "ibv_wc_flags", "IBV_WC_", true,
	E(IBV_WC_, GRH), E(IBV_WC_, WITH_IMM), E(IBV_WC_, IP_CSUM_OK), E(IBV_WC_, WITH_INV),
	E(IBV_WC_, TM_SYNC_REQ), E(IBV_WC_, TM_MATCH), E(IBV_WC_, TM_DATA_VALID))
TABLE(ve_qp_attr_mask, "ibv_qp_attr_mask", "IBV_QP_", true,
	E(IBV_QP_, STATE), E(IBV_QP_, CUR_STATE), E(IBV_QP_, EN_SQD_ASYNC_NOTIFY), E(IBV_QP_, ACCESS_FLAGS),
	E(IBV_QP_, PKEY_INDEX), E(IBV_QP_, PORT), E(IBV_QP_, QKEY), E(IBV_QP_, AV), E(IBV_QP_, PATH_MTU),
	E(IBV_QP_, TIMEOUT), E(IBV_QP_, RETRY_CNT), E(IBV_QP_, RNR_RETRY), E(IBV_QP_, RQ_PSN),
	E(IBV_QP_, MAX_QP_RD_ATOMIC), E(IBV_QP_, ALT_PATH), E(IBV_QP_, MIN_RNR_TIMER), E(IBV_QP_, SQ_PSN),
	E(IBV_QP_, MAX_DEST_RD_ATOMIC), E(IBV_QP_, PATH_MIG_STATE), E(IBV_QP_, CAP), E(IBV_QP_, DEST_QPN),
	E(IBV_QP_, RATE_LIMIT))
TABLE(ve_srq_attr_mask, "ibv_srq_attr_mask", "IBV_SRQ_", true, E(IBV_SRQ_, MAX_WR), E(IBV_SRQ_, LIMIT))
TABLE(ve_port_state, "ibv_port_state", "IBV_PORT_", false,
	E(IBV_PORT_, NOP), E(IBV_PORT_, DOWN), E(IBV_PORT_, INIT), E(IBV_PORT_, ARMED), E(IBV_PORT_, ACTIVE),
	E(IBV_PORT_, ACTIVE_DEFER))
TABLE(ve_port_cap_flags, "ibv_port_cap_flags", "IBV_PORT_", true,
	E(IBV_PORT_, SM), E(IBV_PORT_, NOTICE_SUP), E(IBV_PORT_, TRAP_SUP), E(IBV_PORT_, OPT_IPD_SUP),
	E(IBV_PORT_, AUTO_MIGR_SUP), E(IBV_PORT_, SL_MAP_SUP), E(IBV_PORT_, MKEY_NVRAM), E(IBV_PORT_, PKEY_NVRAM),
	E(IBV_PORT_, LED_INFO_SUP), E(IBV_PORT_, SYS_IMAGE_GUID_SUP), E(IBV_PORT_, PKEY_SW_EXT_PORT_TRAP_SUP),
	E(IBV_PORT_, EXTENDED_SPEEDS_SUP), E(IBV_PORT_, CAP_MASK2_SUP), E(IBV_PORT_, CM_SUP),
	E(IBV_PORT_, SNMP_TUNNEL_SUP), E(IBV_PORT_, REINIT_SUP), E(IBV_PORT_, DEVICE_MGMT_SUP),
	E(IBV_PORT_, VENDOR_CLASS_SUP), E(IBV_PORT_, DR_NOTICE_SUP), E(IBV_PORT_, CAP_MASK_NOTICE_SUP),
	E(IBV_PORT_, BOOT_MGMT_SUP), E(IBV_PORT_, LINK_LATENCY_SUP), E(IBV_PORT_, CLIENT_REG_SUP),
	E(IBV_PORT_, IP_BASED_GIDS))
TABLE(ve_port_cap_flags2, "ibv_port_cap_flags2", "IBV_PORT_", true,
	E(IBV_PORT_, SET_NODE_DESC_SUP), E(IBV_PORT_, INFO_EXT_SUP), E(IBV_PORT_, VIRT_SUP),
	E(IBV_PORT_, SWITCH_PORT_STATE_TABLE_SUP), E(IBV_PORT_, LINK_WIDTH_2X_SUP), E(IBV_PORT_, LINK_SPEED_HDR_SUP))
/* ibv_port_attr.flags: libibverbs #defines IBV_QPF_GRH_REQUIRED from this kernel enum. */
TABLE(ve_port_attr_flags, "ib_uverbs_query_port_flags", "IBV_QPF_", true,
	{ "GRH_REQUIRED", IBV_QPF_GRH_REQUIRED })
/* phys_state is a plain uint8_t in ibv_port_attr; the values are the IBTA's. */
TABLE(ve_port_phys_state, "ibv_port_phys_state", "", false,
	{ "SLEEP", 1 }, { "POLLING", 2 }, { "DISABLED", 3 }, { "PORT_CONFIGURATION_TRAINING", 4 },
	{ "LINK_UP", 5 }, { "LINK_ERROR_RECOVERY", 6 }, { "PHY_TEST", 7 })
TABLE(ve_link_layer, "ibv_link_layer", "IBV_LINK_LAYER_", false,
	E(IBV_LINK_LAYER_, UNSPECIFIED), E(IBV_LINK_LAYER_, INFINIBAND), E(IBV_LINK_LAYER_, ETHERNET))
TABLE(ve_node_type, "ibv_node_type", "IBV_NODE_", false,
	E(IBV_NODE_, UNKNOWN), E(IBV_NODE_, CA), E(IBV_NODE_, SWITCH), E(IBV_NODE_, ROUTER), E(IBV_NODE_, RNIC),
	E(IBV_NODE_, USNIC), E(IBV_NODE_, USNIC_UDP), E(IBV_NODE_, UNSPECIFIED))
TABLE(ve_transport_type, "ibv_transport_type", "IBV_TRANSPORT_", false,
	E(IBV_TRANSPORT_, UNKNOWN), E(IBV_TRANSPORT_, IB), E(IBV_TRANSPORT_, IWARP), E(IBV_TRANSPORT_, USNIC),
	E(IBV_TRANSPORT_, USNIC_UDP), E(IBV_TRANSPORT_, UNSPECIFIED))
TABLE(ve_event_type, "ibv_event_type", "IBV_EVENT_", false,
	E(IBV_EVENT_, CQ_ERR), E(IBV_EVENT_, QP_FATAL), E(IBV_EVENT_, QP_REQ_ERR), E(IBV_EVENT_, QP_ACCESS_ERR),
	E(IBV_EVENT_, COMM_EST), E(IBV_EVENT_, SQ_DRAINED), E(IBV_EVENT_, PATH_MIG), E(IBV_EVENT_, PATH_MIG_ERR),
	E(IBV_EVENT_, DEVICE_FATAL), E(IBV_EVENT_, PORT_ACTIVE), E(IBV_EVENT_, PORT_ERR),
	E(IBV_EVENT_, LID_CHANGE), E(IBV_EVENT_, PKEY_CHANGE), E(IBV_EVENT_, SM_CHANGE), E(IBV_EVENT_, SRQ_ERR),
	E(IBV_EVENT_, SRQ_LIMIT_REACHED), E(IBV_EVENT_, QP_LAST_WQE_REACHED), E(IBV_EVENT_, CLIENT_REREGISTER),
	E(IBV_EVENT_, GID_CHANGE), E(IBV_EVENT_, WQ_FATAL))
TABLE(ve_gid_type, "ibv_gid_type", "IBV_GID_TYPE_", false,
	E(IBV_GID_TYPE_, IB), E(IBV_GID_TYPE_, ROCE_V1), E(IBV_GID_TYPE_, ROCE_V2))
TABLE(ve_mig_state, "ibv_mig_state", "IBV_MIG_", false,
	E(IBV_MIG_, MIGRATED), E(IBV_MIG_, REARM), E(IBV_MIG_, ARMED))
TABLE(ve_atomic_cap, "ibv_atomic_cap", "IBV_ATOMIC_", false,
	E(IBV_ATOMIC_, NONE), E(IBV_ATOMIC_, HCA), E(IBV_ATOMIC_, GLOB))
TABLE(ve_device_cap, "ibv_device_cap_flags", "IBV_DEVICE_", true,
	E(IBV_DEVICE_, RESIZE_MAX_WR), E(IBV_DEVICE_, BAD_PKEY_CNTR), E(IBV_DEVICE_, BAD_QKEY_CNTR),
	E(IBV_DEVICE_, RAW_MULTI), E(IBV_DEVICE_, AUTO_PATH_MIG), E(IBV_DEVICE_, CHANGE_PHY_PORT),
	E(IBV_DEVICE_, UD_AV_PORT_ENFORCE), E(IBV_DEVICE_, CURR_QP_STATE_MOD), E(IBV_DEVICE_, SHUTDOWN_PORT),
	E(IBV_DEVICE_, INIT_TYPE), E(IBV_DEVICE_, PORT_ACTIVE_EVENT), E(IBV_DEVICE_, SYS_IMAGE_GUID),
	E(IBV_DEVICE_, RC_RNR_NAK_GEN), E(IBV_DEVICE_, SRQ_RESIZE), E(IBV_DEVICE_, N_NOTIFY_CQ),
	E(IBV_DEVICE_, MEM_WINDOW), E(IBV_DEVICE_, UD_IP_CSUM), E(IBV_DEVICE_, XRC),
	E(IBV_DEVICE_, MEM_MGT_EXTENSIONS), E(IBV_DEVICE_, MEM_WINDOW_TYPE_2A),
	E(IBV_DEVICE_, MEM_WINDOW_TYPE_2B), E(IBV_DEVICE_, RC_IP_CSUM), E(IBV_DEVICE_, RAW_IP_CSUM),
	E(IBV_DEVICE_, MANAGED_FLOW_STEERING))

/* librdmacm */
TABLE(ve_cm_event_type, "rdma_cm_event_type", "RDMA_CM_EVENT_", false,
	E(RDMA_CM_EVENT_, ADDR_RESOLVED), E(RDMA_CM_EVENT_, ADDR_ERROR), E(RDMA_CM_EVENT_, ROUTE_RESOLVED),
	E(RDMA_CM_EVENT_, ROUTE_ERROR), E(RDMA_CM_EVENT_, CONNECT_REQUEST), E(RDMA_CM_EVENT_, CONNECT_RESPONSE),
	E(RDMA_CM_EVENT_, CONNECT_ERROR), E(RDMA_CM_EVENT_, UNREACHABLE), E(RDMA_CM_EVENT_, REJECTED),
	E(RDMA_CM_EVENT_, ESTABLISHED), E(RDMA_CM_EVENT_, DISCONNECTED), E(RDMA_CM_EVENT_, DEVICE_REMOVAL),
	E(RDMA_CM_EVENT_, MULTICAST_JOIN), E(RDMA_CM_EVENT_, MULTICAST_ERROR), E(RDMA_CM_EVENT_, ADDR_CHANGE),
	E(RDMA_CM_EVENT_, TIMEWAIT_EXIT))
TABLE(ve_port_space, "rdma_port_space", "RDMA_PS_", false,
	E(RDMA_PS_, TCP), E(RDMA_PS_, UDP), E(RDMA_PS_, IB), E(RDMA_PS_, IPOIB))
TABLE(ve_join_mc_attr_mask, "rdma_cm_join_mc_attr_mask", "RDMA_CM_JOIN_MC_ATTR_", true,
	E(RDMA_CM_JOIN_MC_ATTR_, ADDRESS), E(RDMA_CM_JOIN_MC_ATTR_, JOIN_FLAGS))
TABLE(ve_mc_join_flags, "rdma_cm_mc_join_flags", "RDMA_MC_JOIN_FLAG_", false,
	E(RDMA_MC_JOIN_FLAG_, FULLMEMBER), E(RDMA_MC_JOIN_FLAG_, SENDONLY_FULLMEMBER))
/* rdma_addrinfo.ai_flags (RAI_* macros) and ai_family (AF_*). */
TABLE(ve_rai_flags, "rdma_addrinfo.ai_flags", "RAI_", true,
	E(RAI_, PASSIVE), E(RAI_, NUMERICHOST), E(RAI_, NOROUTE), E(RAI_, FAMILY))
TABLE(ve_ai_family, "rdma_addrinfo.ai_family", "AF_", false,
	{ "UNSPEC", AF_UNSPEC }, { "INET", AF_INET }, { "INET6", AF_INET6 }, { "IB", AF_IB })

/* The extended verbs: ibv_create_qp_ex and ibv_create_cq_ex. */
TABLE(ve_send_ops_flags, "ibv_qp_create_send_ops_flags", "IBV_QP_EX_WITH_", true,
	E(IBV_QP_EX_WITH_, RDMA_WRITE), E(IBV_QP_EX_WITH_, RDMA_WRITE_WITH_IMM), E(IBV_QP_EX_WITH_, SEND),
	E(IBV_QP_EX_WITH_, SEND_WITH_IMM), E(IBV_QP_EX_WITH_, RDMA_READ), E(IBV_QP_EX_WITH_, ATOMIC_CMP_AND_SWP),
	E(IBV_QP_EX_WITH_, ATOMIC_FETCH_AND_ADD), E(IBV_QP_EX_WITH_, LOCAL_INV), E(IBV_QP_EX_WITH_, BIND_MW),
	E(IBV_QP_EX_WITH_, SEND_WITH_INV), E(IBV_QP_EX_WITH_, TSO), E(IBV_QP_EX_WITH_, ATOMIC_WRITE))
TABLE(ve_qp_init_attr_mask, "ibv_qp_init_attr_mask", "IBV_QP_INIT_ATTR_", true,
	E(IBV_QP_INIT_ATTR_, PD), E(IBV_QP_INIT_ATTR_, XRCD), E(IBV_QP_INIT_ATTR_, CREATE_FLAGS),
	E(IBV_QP_INIT_ATTR_, MAX_TSO_HEADER), E(IBV_QP_INIT_ATTR_, IND_TABLE), E(IBV_QP_INIT_ATTR_, RX_HASH),
	E(IBV_QP_INIT_ATTR_, SEND_OPS_FLAGS))
TABLE(ve_qp_create_flags, "ibv_qp_create_flags", "IBV_QP_CREATE_", true,
	E(IBV_QP_CREATE_, BLOCK_SELF_MCAST_LB), E(IBV_QP_CREATE_, SCATTER_FCS), E(IBV_QP_CREATE_, CVLAN_STRIPPING),
	E(IBV_QP_CREATE_, SOURCE_QPN), E(IBV_QP_CREATE_, PCI_WRITE_END_PADDING))
TABLE(ve_create_cq_wc_flags, "ibv_create_cq_wc_flags", "IBV_WC_EX_WITH_", true,
	E(IBV_WC_EX_WITH_, BYTE_LEN), E(IBV_WC_EX_WITH_, IMM), E(IBV_WC_EX_WITH_, QP_NUM), E(IBV_WC_EX_WITH_, SRC_QP),
	E(IBV_WC_EX_WITH_, SLID), E(IBV_WC_EX_WITH_, SL), E(IBV_WC_EX_WITH_, DLID_PATH_BITS),
	E(IBV_WC_EX_WITH_, COMPLETION_TIMESTAMP), E(IBV_WC_EX_WITH_, CVLAN), E(IBV_WC_EX_WITH_, FLOW_TAG),
	E(IBV_WC_EX_WITH_, TM_INFO), E(IBV_WC_EX_WITH_, COMPLETION_TIMESTAMP_WALLCLOCK))
TABLE(ve_cq_init_attr_mask, "ibv_cq_init_attr_mask", "IBV_CQ_INIT_ATTR_MASK_", true,
	E(IBV_CQ_INIT_ATTR_MASK_, FLAGS), E(IBV_CQ_INIT_ATTR_MASK_, PD))
TABLE(ve_create_cq_attr_flags, "ibv_create_cq_attr_flags", "IBV_CREATE_CQ_ATTR_", true,
	E(IBV_CREATE_CQ_ATTR_, SINGLE_THREADED), E(IBV_CREATE_CQ_ATTR_, IGNORE_OVERRUN))
/* Memory windows: pd:alloc_mw(type). */
TABLE(ve_mw_type, "ibv_mw_type", "IBV_MW_", false, E(IBV_MW_, TYPE_1), E(IBV_MW_, TYPE_2))

/* The rest of verbs.h (src/api_rest.c): SRQs of ibv_create_srq_ex, fork
 * support, static rates, ibv_rereg_mr's flags. */
TABLE(ve_srq_type, "ibv_srq_type", "IBV_SRQT_", false, E(IBV_SRQT_, BASIC), E(IBV_SRQT_, XRC), E(IBV_SRQT_, TM))
TABLE(ve_srq_init_attr_mask, "ibv_srq_init_attr_mask", "IBV_SRQ_INIT_ATTR_", true,
	E(IBV_SRQ_INIT_ATTR_, TYPE), E(IBV_SRQ_INIT_ATTR_, PD), E(IBV_SRQ_INIT_ATTR_, XRCD), E(IBV_SRQ_INIT_ATTR_, CQ),
	E(IBV_SRQ_INIT_ATTR_, TM))
TABLE(ve_fork_status, "ibv_fork_status", "IBV_FORK_", false,
	E(IBV_FORK_, DISABLED), E(IBV_FORK_, ENABLED), E(IBV_FORK_, UNNEEDED))
TABLE(ve_rate, "ibv_rate", "IBV_RATE_", false,
	E(IBV_RATE_, MAX), E(IBV_RATE_, 2_5_GBPS), E(IBV_RATE_, 10_GBPS), E(IBV_RATE_, 30_GBPS), E(IBV_RATE_, 5_GBPS),
	E(IBV_RATE_, 20_GBPS), E(IBV_RATE_, 40_GBPS), E(IBV_RATE_, 60_GBPS), E(IBV_RATE_, 80_GBPS),
	E(IBV_RATE_, 120_GBPS), E(IBV_RATE_, 14_GBPS), E(IBV_RATE_, 56_GBPS), E(IBV_RATE_, 112_GBPS),
	E(IBV_RATE_, 168_GBPS), E(IBV_RATE_, 25_GBPS), E(IBV_RATE_, 100_GBPS), E(IBV_RATE_, 200_GBPS),
	E(IBV_RATE_, 300_GBPS), E(IBV_RATE_, 28_GBPS), E(IBV_RATE_, 50_GBPS), E(IBV_RATE_, 400_GBPS),
	E(IBV_RATE_, 600_GBPS), E(IBV_RATE_, 800_GBPS), E(IBV_RATE_, 1200_GBPS))
TABLE(ve_rereg_mr_flags, "ibv_rereg_mr_flags", "IBV_REREG_MR_", true,
	E(IBV_REREG_MR_, CHANGE_TRANSLATION), E(IBV_REREG_MR_, CHANGE_PD), E(IBV_REREG_MR_, CHANGE_ACCESS))

static const struct venum *const all[] = {
	&ve_qp_state, &ve_qp_type, &ve_mtu, &ve_wc_status, &ve_wc_opcode, &ve_wr_opcode, &ve_access,
	&ve_send_flags, &ve_wc_flags, &ve_qp_attr_mask, &ve_srq_attr_mask, &ve_port_state,
	&ve_port_phys_state, &ve_port_cap_flags, &ve_port_cap_flags2, &ve_port_attr_flags, &ve_link_layer,
	&ve_node_type, &ve_transport_type, &ve_event_type, &ve_gid_type, &ve_mig_state, &ve_atomic_cap,
	&ve_device_cap, &ve_cm_event_type, &ve_port_space,
	&ve_join_mc_attr_mask, &ve_mc_join_flags, &ve_rai_flags, &ve_ai_family,
	&ve_send_ops_flags, &ve_qp_init_attr_mask, &ve_qp_create_flags, &ve_create_cq_wc_flags,
	&ve_cq_init_attr_mask, &ve_create_cq_attr_flags, &ve_mw_type,
	&ve_srq_type, &ve_srq_init_attr_mask, &ve_fork_status, &ve_rate, &ve_rereg_mr_flags,
};

const char *venum_name(const struct venum *t, int64_t v)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].value == v)
			return t->e[i].name;
	return NULL;
}

void venum_push(lua_State *L, const struct venum *t, int64_t v)
{
	const char *s = venum_name(t, v);
	if (s)
		lua_pushstring(L, s);
	else
		lua_pushinteger(L, v);
}

void vflags_push(lua_State *L, const struct venum *t, uint64_t v)
{
	int k = 0;
	/* Sized to the bits set: a WC table's wc_flags is most often empty,
	 * and an array part of 4 was allocated (and collected) for nothing. */
	lua_createtable(L, __builtin_popcountll(v), 0);
	for (uint64_t rest = v; rest; rest &= rest - 1) {   /* the set bits, lowest first */
		venum_push(L, t, (int64_t)(rest & -rest));
		lua_rawseti(L, -2, ++k);
	}
}

/* A short name, or the full name with the prefix. First letters are
 * compared before the calls: each WR a post reads has an opcode and flags. */
static bool lookup(const struct venum *t, const char *s, int64_t *out)
{
	if (t->prefix[0] && s[0] == t->prefix[0]) {
		size_t pl = strlen(t->prefix);
		if (strncmp(s, t->prefix, pl) == 0)
			s += pl;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].name[0] == s[0] && strcmp(t->e[i].name, s) == 0) {
			*out = t->e[i].value;
			return true;
		}
	return false;
}

static const char *bad_name(lua_State *L, const struct venum *t, const char *s)
{
	luaL_Buffer b;
	struct vsuggest g;
	size_t pl = strlen(t->prefix);
	vsuggest_init(&g, pl && strncmp(s, t->prefix, pl) == 0 ? s + pl : s);
	for (size_t i = 0; i < t->n; i++)
		vsuggest_offer(&g, t->e[i].name);
	luaL_buffinit(L, &b);
	if (vsuggest_best(&g))
		lua_pushfstring(L, "'%s' is not a name of %s: did you mean \"%s\"? (known: ", s, t->ctype, vsuggest_best(&g));
	else
		lua_pushfstring(L, "'%s' is not a name of %s (known: ", s, t->ctype);
	luaL_addvalue(&b);
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			luaL_addstring(&b, ", ");
		luaL_addstring(&b, t->e[i].name);
	}
	luaL_addstring(&b, ")");
	luaL_pushresult(&b);
	return lua_tostring(L, -1);
}

/* "1024 is not a value of ibv_mtu": the names, and for an enum whose names
 * are numbers (ibv_mtu's "1024" is IBV_MTU_1024 = 3) the one meant. */
static const char *bad_value(lua_State *L, const struct venum *t, int64_t v)
{
	char num[32];
	luaL_Buffer b;
	snprintf(num, sizeof num, "%lld", (long long)v);
	luaL_buffinit(L, &b);
	lua_pushfstring(L, "%s is not a value of %s", num, t->ctype);
	luaL_addvalue(&b);
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->e[i].name, num) == 0) {
			lua_pushfstring(L, ": use the name \"%s\" (%s%s = %d); the integer is the enum's value, not %s",
					num, t->prefix, num, (int)t->e[i].value, num);
			luaL_addvalue(&b);
		}
	luaL_addstring(&b, " (values: ");
	for (size_t i = 0; i < t->n; i++) {
		lua_pushfstring(L, "%s\"%s\" = %d", i ? ", " : "", t->e[i].name, (int)t->e[i].value);
		luaL_addvalue(&b);
	}
	luaL_addstring(&b, ")");
	luaL_pushresult(&b);
	return lua_tostring(L, -1);
}

/* Every bit a flag of t defines. */
static uint64_t defined_bits(const struct venum *t)
{
	uint64_t all = 0;
	for (size_t i = 0; i < t->n; i++)
		all |= (uint64_t)t->e[i].value;
	return all;
}

/* qp_access_flags = 0xffffffff: bits that no flag names are a mistake (an
 * enum's integer out of range is refused alike), never passed on unseen.
 * "0xffefff00 has bits no IBV_ACCESS_* flag defines (0xffffffff given;
 * the flags: LOCAL_WRITE = 0x1, ...)". */
static const char *undefined_bits(lua_State *L, const struct venum *t, uint64_t v)
{
	char num[64];
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	snprintf(num, sizeof num, "0x%llx", (unsigned long long)(v & ~defined_bits(t)));
	lua_pushfstring(L, "%s has bits no %s* flag defines (", num, t->prefix);
	luaL_addvalue(&b);
	snprintf(num, sizeof num, "0x%llx given; the flags: ", (unsigned long long)v);
	luaL_addstring(&b, num);
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			luaL_addstring(&b, ", ");
		luaL_addstring(&b, t->e[i].name);
		snprintf(num, sizeof num, " = 0x%llx", (unsigned long long)t->e[i].value);
		luaL_addstring(&b, num);
	}
	luaL_addstring(&b, ")");
	luaL_pushresult(&b);
	return lua_tostring(L, -1);
}

const char *venum_read(lua_State *L, int idx, const struct venum *t, int64_t *out)
{
	switch (lua_type(L, idx)) {
	case LUA_TSTRING:
		if (!marsh_cstring(L, idx))   /* "INIT\0RTS" is not INIT */
			return lua_pushfstring(L, "%s: '%s' is followed by a NUL byte and more text (C would read '%s' "
						  "alone)%s", t->ctype, lua_tostring(L, idx), lua_tostring(L, idx),
					       t->flags ? "; several flags are a list: { \"A\", \"B\" }" : "");
		if (lookup(t, lua_tostring(L, idx), out))
			return NULL;
		return bad_name(L, t, lua_tostring(L, idx));
	case LUA_TNUMBER: {
		int isint;
		lua_Integer v = lua_tointegerx(L, idx, &isint);
		if (!isint)
			return lua_pushfstring(L, "%s: %s is not an integer", t->ctype, lua_tostring(L, idx));
		if (!t->flags && !venum_name(t, v))
			return bad_value(L, t, v);
		if (t->flags && v < 0)
			return lua_pushfstring(L, "%s: %I is negative", t->ctype, v);
		if (t->flags && ((uint64_t)v & ~defined_bits(t)))
			return undefined_bits(L, t, (uint64_t)v);
		*out = v;
		return NULL;
	}
	case LUA_TTABLE:
		if (t->flags) {
			int64_t acc = 0, one;
			lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
			for (lua_Integer i = 1; i <= n; i++) {
				lua_rawgeti(L, idx, i);
				if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
					return lua_pushfstring(L, "%s list: item %d is a %s", t->ctype, (int)i,
							       luaL_typename(L, -1));
				const char *e = venum_read(L, lua_gettop(L), t, &one);
				if (e)
					return e;
				lua_pop(L, 1);
				acc |= one;
			}
			/* Every entry of a list is an item: keys other than 1..n are typos. */
			lua_pushnil(L);
			while (lua_next(L, idx)) {
				lua_pop(L, 1);
				if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
					lua_pushfstring(L, "%s list: unexpected key '%s'", t->ctype,
							luaL_tolstring(L, -1, NULL));
					return lua_tostring(L, -1);
				}
			}
			*out = acc;
			return NULL;
		}
		/* fallthrough */
	default:
		return lua_pushfstring(L, "%s expected (a name%s or an integer), got %s", t->ctype,
				       t->flags ? ", a list of names" : "", luaL_typename(L, idx));
	}
}

void venum_c(luaL_Buffer *b, const struct venum *t, int64_t v)
{
	char num[32];
	if (!t->flags) {
		const char *s = venum_name(t, v);
		if (s) {
			luaL_addstring(b, t->prefix);
			luaL_addstring(b, s);
		} else {
			snprintf(num, sizeof num, "%lld", (long long)v);
			luaL_addstring(b, num);
		}
		return;
	}
	if (v == 0) {
		luaL_addchar(b, '0');
		return;
	}
	bool first = true;
	for (int bit = 0; bit < 64; bit++) {
		uint64_t m = (uint64_t)1 << bit;
		if (!((uint64_t)v & m))
			continue;
		if (!first)
			luaL_addstring(b, " | ");
		first = false;
		const char *s = venum_name(t, (int64_t)m);
		if (s) {
			luaL_addstring(b, t->prefix);
			luaL_addstring(b, s);
		} else {
			snprintf(num, sizeof num, "0x%llx", (unsigned long long)m);
			luaL_addstring(b, num);
		}
	}
}

const struct venum *venum_find(const char *ctype)
{
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (strcmp(all[i]->ctype, ctype) == 0)
			return all[i];
	return NULL;
}

const struct venum *venum_at(size_t i)
{
	return i < sizeof all / sizeof all[0] ? all[i] : NULL;
}

/* verbs.enums[ctype] of an unknown C type, a typo most likely, is never a
 * silent nil: an error with the closest C enum's name. A key that is not
 * a string (enums[1]) is nil, as in any table. */
static int enums_index(lua_State *L)
{
	struct vsuggest g;
	if (lua_type(L, 2) != LUA_TSTRING)
		return 0;
	const char *k = lua_tostring(L, 2);
	vsuggest_init(&g, k);
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		vsuggest_offer(&g, all[i]->ctype);
	if (vsuggest_best(&g))
		return luaL_error(L, "verbs.enums has no enum '%s'; did you mean '%s'?", k, vsuggest_best(&g));
	return luaL_error(L, "verbs.enums has no enum '%s' (its keys are C type names: ibv_qp_state, "
			  "ibv_access_flags, ...; pairs(verbs.enums) lists them)", k);
}

void venum_open(lua_State *L)
{
	lua_createtable(L, 0, sizeof all / sizeof all[0]);
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		lua_createtable(L, (int)all[i]->n, 0);
		for (size_t j = 0; j < all[i]->n; j++) {
			lua_pushstring(L, all[i]->e[j].name);
			lua_rawseti(L, -2, (lua_Integer)j + 1);
		}
		lua_setfield(L, -2, all[i]->ctype);
	}
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, enums_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
}
