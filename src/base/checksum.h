/* CRC32C's portable path, for tests: qv_crc32c (quiver/base.h) uses the
 * SSE4.2 instruction where the CPU has it and this otherwise, so a machine
 * with the instruction would never run this one. */
#ifndef QUIVER_BASE_CHECKSUM_H
#define QUIVER_BASE_CHECKSUM_H

#include "quiver/base.h"

/* The same value as qv_crc32c, by slicing-by-8 tables. */
uint32_t qvb_crc32c_portable(uint32_t crc, const void *data, size_t size);

#endif
