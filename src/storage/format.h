/* The storage formats' constants and bounds, and the storage layer's test
 * hooks.  docs/format.md describes the bytes the storage headers read and
 * write (format.h, schema_codec.h, manifest.h, page_stats.h, datafile.h,
 * compress.h, fsst.h, encoding.h); keep the two in step. */
#ifndef QUIVER_STORAGE_FORMAT_H
#define QUIVER_STORAGE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

/* ---- format constants ------------------------------------------------- */

#define QVS_DATA_MAGIC "QVF1"     /* first and last 4 bytes of a .qvf */
#define QVS_MANIFEST_MAGIC "QVM1" /* first 4 bytes of a .manifest */
#define QVS_DELETION_MAGIC "QVD1" /* first 4 bytes of a .del */
#define QVS_DATA_HEADER 8         /* magic + u32 format version */
#define QVS_DATA_TRAILER 16       /* u64 footer length, u32 footer crc, magic */

/* A raw page's stored bytes are checksummed (and so read by a take) in
 * blocks: 1 KiB from format version 4 on, recorded in the footer, 4 KiB
 * before.  Smaller blocks make a take of a few short values read and
 * verify a quarter of the bytes, for a footer of 0.4% of the raw bytes
 * instead of 0.1%. */
#define QVS_BLOCK 1024
#define QVS_BLOCK_V3 4096 /* versions 1 to 3 */
/* Compressed pages are stored as independent frames of this many raw bytes
 * (the last shorter), so a take of a few rows decompresses only the frames
 * holding them.  Data files with framed pages have format version 2 or 3,
 * and record the frame size they were written with in the footer; version
 * 3 checksums each frame on its own, so a take also reads only the frames'
 * stored bytes (version 2: the 4096-byte blocks spanning them). */
#define QVS_FRAME 16384
#define QVS_DATAFILE_VERSION 4      /* 4: FSST pages (encoding 3) */
#define QVS_PAGE_MINMAX 0x1u        /* page flags: min and max follow */
#define QVS_PAGE_FRAMED 0x2u        /* page flags: compressed in QVS_FRAME frames (version 2 and later) */
#define QVS_MAX_PAGE_ROWS (1 << 16) /* bound on rows per page (writer option and reader) */
#define QVS_MAX_FRAGMENT_ROWS (INT64_C(1) << 32)
#define QVS_MAX_DEPTH 32                      /* nesting of types */
#define QVS_MAX_NAME 4096                     /* bytes of a field name, time zone, file name */
#define QVS_MAX_DICT 65536                    /* dictionary entries */
#define QVS_MAX_BITS 56                       /* widest bit-packed value (one unaligned 64-bit load) */
#define QVS_PACK_PAD 8                        /* zero bytes after packed bits, for that load */
#define QVS_SLACK 64                          /* zeroed bytes after a page's bytes in memory (over-reads) */
#define QVS_STAT_PREFIX 64                    /* bytes of a string statistic kept */
#define QVS_MAX_PAGE_BYTES (INT64_C(1) << 31) /* a page's decoded bytes (int32 offsets) */
#define QVS_MAX_MANIFEST_BYTES (INT64_C(1) << 30)

/* ---- test hook ---------------------------------------------------------- */

/* Called at named points of a commit when non-NULL: "fragment-written"
 * (after each data file is complete), "data-written" (all data files and
 * the data directory fsynced), "manifest-written" (temp manifest fsynced),
 * "before-publish", "published" (linked, before the directory fsync).  The
 * crash test sets it to a function that raises SIGKILL at one of them. */
extern void (*qvs_commit_hook)(const char *step);
void qvs_commit_step(const char *step);

/* Checksums are verified unless a fuzz target turns this off to reach the
 * parsers and decoders with mutated bytes (never in the library itself). */
extern bool qvs_verify_checksums;

#endif
