/* storage layer: placeholder so the layer library has a translation unit until its first file lands. */
typedef int qv_storage_placeholder_;
