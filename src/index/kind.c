/* The table of index kinds: the one place that lists them.  Everything
 * else looks a kind up here by its type code (the manifest's and the
 * index file's). */
#include "index/index_int.h"

static const qvi_kind *const kinds[] = {NULL,
                                        &qvi_kind_btree,
                                        &qvi_kind_bitmap,
                                        &qvi_kind_ngram,
                                        &qvi_kind_label_list,
                                        &qvi_kind_ivf_flat,
                                        &qvi_kind_ivf_pq};

const qvi_kind *qvi_kind_of(int type) {
  return type >= 1 && type < (int)(sizeof kinds / sizeof *kinds) && type <= QV_INDEX_TYPE_MAX ? kinds[type] : NULL;
}

bool qvi_type_supported(qv_index_type type, const qv_datatype *t) {
  const qvi_kind *k = qvi_kind_of(type);
  return k && k->supports(t);
}

void qvi_stats_footer(const qvi_file *f, qv_index_stats *out) {
  out->fragments++;
  out->rows += f->num_rows;
  out->null_count += f->null_count;
  out->entries += f->entries;
  out->distinct += f->distinct;
  out->bytes += f->file_size;
}

const char *qv_index_type_name(int type) {
  const qvi_kind *k = qvi_kind_of(type);
  return k ? k->name : "unknown";
}

bool qv_index_type_parse(const char *s, qv_index_type *out) {
  for (int t = QV_INDEX_TYPE_MIN; s && t <= QV_INDEX_TYPE_MAX; t++) {
    const qvi_kind *k = qvi_kind_of(t);
    if (k && strcmp(s, k->name) == 0) {
      *out = (qv_index_type)t;
      return true;
    }
  }
  return false;
}
