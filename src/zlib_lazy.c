/* zlib's crc32(), the ICRC's CRC, from libz opened on first use
 * (lazylib.h): only a run that checks an ICRC loads it. */
#include <zlib.h>
#include "lazylib.h"
#include "wire.h"

#ifndef ZLIB_SONAME
#define ZLIB_SONAME "libz.so.1"
#endif

static struct vlib libz = { .soname = ZLIB_SONAME };

wire_crc32_fn wire_crc32(const char **why)
{
	__typeof__(&crc32) f = VLIB_REAL(libz, crc32);
	if (!f)
		*why = libz.error;
	return (wire_crc32_fn)f;
}
