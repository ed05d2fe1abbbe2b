/* A stand-in libpcap for a busy machine (tests/host/wire.bats): the
 * process's first pcap_dispatch (the capture thread's) reads nothing and returns only once
 * the capture is being stopped (pcap_breakloop called, at most 5 s later),
 * as a read that found the ring empty would if its thread were then
 * descheduled while frames arrive and the stop comes. Every other call goes
 * to the real libpcap (REAL_PCAP, its path). Built as libpcap.so.0.8 in a
 * folder of LD_LIBRARY_PATH, where verbsh's dlopen finds it first. */
#include <dlfcn.h>
#include <pcap/pcap.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *real(const char *name)
{
	static void *h;
	if (!h && !(h = dlopen(REAL_PCAP, RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "slowpcap: %s\n", dlerror());
		exit(127);
	}
	void *f = dlsym(h, name);
	if (!f) {
		fprintf(stderr, "slowpcap: no %s in %s\n", name, REAL_PCAP);
		exit(127);
	}
	return f;
}

#define FWD(ret, name, params, args) \
	ret name params { return ((ret (*) params)real(#name)) args; }
#define FWDV(name, params, args) \
	void name params { ((void (*) params)real(#name)) args; }

FWD(pcap_t *, pcap_create, (const char *s, char *e), (s, e))
FWD(pcap_t *, pcap_open_offline, (const char *f, char *e), (f, e))
FWD(pcap_t *, pcap_open_dead, (int l, int s), (l, s))
FWD(char *, pcap_geterr, (pcap_t *p), (p))
FWDV(pcap_close, (pcap_t *p), (p))
FWD(int, pcap_set_snaplen, (pcap_t *p, int n), (p, n))
FWD(int, pcap_set_buffer_size, (pcap_t *p, int n), (p, n))
FWD(int, pcap_set_immediate_mode, (pcap_t *p, int on), (p, on))
FWD(int, pcap_set_timeout, (pcap_t *p, int ms), (p, ms))
FWD(int, pcap_activate, (pcap_t *p), (p))
FWD(int, pcap_compile, (pcap_t *p, struct bpf_program *b, const char *s, int o, bpf_u_int32 m), (p, b, s, o, m))
FWD(int, pcap_setfilter, (pcap_t *p, struct bpf_program *b), (p, b))
FWD(int, pcap_setnonblock, (pcap_t *p, int on, char *e), (p, on, e))
FWD(int, pcap_stats, (pcap_t *p, struct pcap_stat *s), (p, s))
FWD(int, pcap_next_ex, (pcap_t *p, struct pcap_pkthdr **h, const u_char **b), (p, h, b))
FWD(int, pcap_datalink, (pcap_t *p), (p))
FWD(const char *, pcap_datalink_val_to_name, (int d), (d))
FWD(pcap_dumper_t *, pcap_dump_open, (pcap_t *p, const char *f), (p, f))
FWD(int, pcap_dump_flush, (pcap_dumper_t *d), (d))
FWDV(pcap_freecode, (struct bpf_program *b), (b))
FWDV(pcap_dump, (u_char *u, const struct pcap_pkthdr *h, const u_char *b), (u, h, b))
FWDV(pcap_dump_close, (pcap_dumper_t *d), (d))

static atomic_int stopping;
static atomic_int calls;

void pcap_breakloop(pcap_t *p)
{
	atomic_store(&stopping, 1);
	((void (*)(pcap_t *))real("pcap_breakloop"))(p);
}

int pcap_dispatch(pcap_t *p, int cnt, pcap_handler cb, u_char *user)
{
	if (atomic_fetch_add(&calls, 1) == 0) {
		for (int i = 0; i < 5000 && !atomic_load(&stopping); i++)
			usleep(1000);
		return 0;
	}
	return ((int (*)(pcap_t *, int, pcap_handler, u_char *))real("pcap_dispatch"))(p, cnt, cb, user);
}
