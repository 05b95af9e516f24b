/* Schemas on disk: the fields a manifest and a data file footer hold. */
#ifndef QUIVER_STORAGE_SCHEMA_CODEC_H
#define QUIVER_STORAGE_SCHEMA_CODEC_H

#include "base/wire.h"

#include "quiver/columnar.h"

/* ---- schemas on disk (schema_codec.c) ----------------------------------- */

void qvs_put_field(qvb_wbuf *w, const qv_field *f);
void qvs_put_schema(qvb_wbuf *w, const qv_schema *s);
/* Parses a field; on failure the cursor holds the error and *out is reset. */
bool qvs_get_field(qvb_cursor *c, qv_field *out, int depth);
bool qvs_get_schema(qvb_cursor *c, qv_schema *out);
/* Whether the storage layer can write the type (every type it knows). */
bool qvs_type_supported(const qv_datatype *t, int depth);

#endif
