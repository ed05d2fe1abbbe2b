/* verbs.wire's frames (src/wire.c): one userdata per frame, its headers
 * read on demand, for decode, pcap files and verbs.capture alike. */
#ifndef VERBSH_WIRE_H
#define VERBSH_WIRE_H
#include <stdint.h>
#include <lua.h>

/* Pushes a frame of caplen bytes at b (length bytes on the wire, captured at
 * time seconds). owner == 0: the bytes are copied into the frame. Otherwise
 * owner is the stack index of the userdata that owns b (a capture's store):
 * the frame points into it and keeps it alive. */
void wire_push_frame(lua_State *L, const uint8_t *b, uint32_t caplen, uint32_t length, double time, int owner);

/* package.preload["verbs.wire_core"]: what lua/wire.lua builds on. */
void wire_open(lua_State *L);

/* zlib's crc32(crc, buf, len), from libz loaded on first use
 * (src/zlib_lazy.c); NULL, and why, when libz cannot be loaded. */
typedef unsigned long (*wire_crc32_fn)(unsigned long crc, const unsigned char *buf, unsigned len);
wire_crc32_fn wire_crc32(const char **why);

#endif
