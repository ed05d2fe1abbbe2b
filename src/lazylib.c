/* Opening libraries on first use (see lazylib.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
#include "lazylib.h"

void *vlib_open(struct vlib *lib)
{
	void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
	if (h)
		return h;
	/* dlopen of a loaded library only counts a reference, so two threads
	 * racing here get the same handle. RTLD_GLOBAL: the library's symbols
	 * are seen by later lookups (dlsym(RTLD_DEFAULT), its own plugins) as if
	 * the executable had been linked with it. */
	h = dlopen(lib->soname, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		const char *why = dlerror();
		snprintf(lib->error, sizeof lib->error, "%s", why ? why : lib->soname);
		return NULL;
	}
	__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
	return h;
}

void *vlib_sym(struct vlib *lib, const char *name)
{
	void *h = vlib_open(lib);
	if (!h)
		return NULL;
	void *f = dlsym(h, name);
	if (!f) {
		fprintf(stderr, "symbol lookup error: %s: undefined symbol: %s\n", lib->soname, name);
		fflush(stderr);
		_exit(127);
	}
	return f;
}
