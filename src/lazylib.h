/* Shared libraries opened on first use rather than by the dynamic loader at
 * start: each DT_NEEDED library costs every run of `verbsh -e ''` its
 * loading, relocation and constructors (libpcap alone drags in dbus,
 * systemd, gcrypt and five more), though most runs never capture a frame. */
#ifndef VERBSH_LAZYLIB_H
#define VERBSH_LAZYLIB_H

struct vlib {
	const char *soname;   /* "libpcap.so.0.8": the name the linker would record */
	void *handle;         /* set once loaded (atomically: two states may race) */
	char error[256];      /* why it could not be loaded */
};

/* Loads LIB (RTLD_GLOBAL, as a DT_NEEDED library would be) unless done;
 * returns its handle, or NULL with the reason in lib->error. */
void *vlib_open(struct vlib *lib);

/* NAME's address in LIB, or NULL when LIB cannot be loaded. A loaded LIB
 * without NAME ends the process as the dynamic loader would ("symbol lookup
 * error", status 127): the program was built against a different library. */
void *vlib_sym(struct vlib *lib, const char *name);

/* VLIB_REAL(lib, name): the library's own NAME as a function pointer of
 * NAME's declared type (NULL when LIB cannot be loaded), looked up once per
 * call site. */
#define VLIB_REAL(lib, name) ({ \
	static void *vlib_slot_; \
	void *vlib_f_ = __atomic_load_n(&vlib_slot_, __ATOMIC_ACQUIRE); \
	if (!vlib_f_ && (vlib_f_ = vlib_sym(&(lib), #name))) \
		__atomic_store_n(&vlib_slot_, vlib_f_, __ATOMIC_RELEASE); \
	(__typeof__(&name))vlib_f_; })

#endif
