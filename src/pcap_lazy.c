/* The libpcap functions capture.c calls, as forwarders to libpcap loaded
 * on first use (lazylib.h): verbsh and verbs.so are not linked with it, so
 * that a run that never calls verbs.capture does not load libpcap and the
 * eight libraries under it (dbus, systemd, gcrypt, ...), which were two
 * thirds of the instructions of `verbsh -e ''`.
 *
 * capture.c and wire.c reach libpcap only through pcap_create (a live
 * capture), pcap_open_dead (cap:save) and pcap_open_offline (reading a pcap
 * file); when libpcap cannot be loaded, those fail as
 * libpcap reports failure (NULL, the reason in errbuf or pcap_geterr), and
 * the rest return failure too. */
#include <stdio.h>
#include <sys/time.h>
#include <sys/types.h>
#include "lazylib.h"
/* Hidden, also in ./verbsh: these must never interpose on a real libpcap
 * that something else in the process loads. (After the system headers: a
 * hidden libc declaration would break the link.) */
#pragma GCC visibility push(hidden)
#include <pcap/pcap.h>

#ifndef PCAP_SONAME
#define PCAP_SONAME "libpcap.so.0.8"
#endif

static struct vlib libpcap = { .soname = PCAP_SONAME };

#define REAL(name) VLIB_REAL(libpcap, name)

pcap_t *pcap_create(const char *source, char *errbuf)
{
	__typeof__(&pcap_create) f = REAL(pcap_create);
	if (!f) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", libpcap.error);
		return NULL;
	}
	return f(source, errbuf);
}

pcap_t *pcap_open_offline(const char *fname, char *errbuf)
{
	__typeof__(&pcap_open_offline) f = REAL(pcap_open_offline);
	if (f)
		return f(fname, errbuf);
	snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", libpcap.error);
	return NULL;
}

pcap_t *pcap_open_dead(int linktype, int snaplen)
{
	__typeof__(&pcap_open_dead) f = REAL(pcap_open_dead);
	return f ? f(linktype, snaplen) : NULL;
}

char *pcap_geterr(pcap_t *p)
{
	__typeof__(&pcap_geterr) f = REAL(pcap_geterr);
	return f ? f(p) : libpcap.error;
}

void pcap_close(pcap_t *p)
{
	__typeof__(&pcap_close) f = REAL(pcap_close);
	if (f)
		f(p);
}

/* FWD(ret, name, failure, (params), (args)) */
#define FWD(ret, name, failure, params, args) \
	ret name params \
	{ \
		__typeof__(&name) f = REAL(name); \
		return f ? f args : failure; \
	}

FWD(int, pcap_set_snaplen, PCAP_ERROR, (pcap_t *p, int n), (p, n))
FWD(int, pcap_set_buffer_size, PCAP_ERROR, (pcap_t *p, int n), (p, n))
FWD(int, pcap_set_immediate_mode, PCAP_ERROR, (pcap_t *p, int on), (p, on))
FWD(int, pcap_set_timeout, PCAP_ERROR, (pcap_t *p, int ms), (p, ms))
FWD(int, pcap_activate, PCAP_ERROR, (pcap_t *p), (p))
FWD(int, pcap_compile, PCAP_ERROR, (pcap_t *p, struct bpf_program *prog, const char *str, int optimize,
	bpf_u_int32 netmask), (p, prog, str, optimize, netmask))
FWD(int, pcap_setfilter, PCAP_ERROR, (pcap_t *p, struct bpf_program *prog), (p, prog))
FWD(int, pcap_setnonblock, PCAP_ERROR, (pcap_t *p, int on, char *errbuf), (p, on, errbuf))
FWD(int, pcap_stats, PCAP_ERROR, (pcap_t *p, struct pcap_stat *ps), (p, ps))
FWD(int, pcap_dispatch, PCAP_ERROR, (pcap_t *p, int cnt, pcap_handler cb, u_char *user), (p, cnt, cb, user))
FWD(int, pcap_next_ex, PCAP_ERROR, (pcap_t *p, struct pcap_pkthdr **h, const u_char **bytes), (p, h, bytes))
FWD(int, pcap_datalink, PCAP_ERROR, (pcap_t *p), (p))
FWD(const char *, pcap_datalink_val_to_name, NULL, (int dlt), (dlt))
FWD(pcap_dumper_t *, pcap_dump_open, NULL, (pcap_t *p, const char *fname), (p, fname))
FWD(int, pcap_dump_flush, PCAP_ERROR, (pcap_dumper_t *d), (d))

void pcap_freecode(struct bpf_program *prog)
{
	__typeof__(&pcap_freecode) f = REAL(pcap_freecode);
	if (f)
		f(prog);
}

void pcap_breakloop(pcap_t *p)
{
	__typeof__(&pcap_breakloop) f = REAL(pcap_breakloop);
	if (f)
		f(p);
}

void pcap_dump(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	__typeof__(&pcap_dump) f = REAL(pcap_dump);
	if (f)
		f(user, h, bytes);
}

void pcap_dump_close(pcap_dumper_t *d)
{
	__typeof__(&pcap_dump_close) f = REAL(pcap_dump_close);
	if (f)
		f(d);
}
