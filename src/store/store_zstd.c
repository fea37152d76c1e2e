/*
 * The store's zstd contexts (store_impl.h): one for compressing and one for
 * decompressing, made on first use and kept until store_close(), so that each run's log
 * does not pay for a context's allocation and initialisation as ZSTD_compress() and
 * ZSTD_decompress() do at every call. The bytes written are ZSTD_compress()'s at the
 * same level: ZSTD_compressCCtx() at a level ignores any other parameter of the context.
 */
#include "store/store.h"
#include "store/store_impl.h"

#include <zstd.h>

#include "util/common.h"

void *store_compress(struct store *st, const void *data, size_t len, size_t *zlen)
{
	size_t bound = ZSTD_compressBound(len), n;
	void *z;
	if (!st->zstd_c && !(st->zstd_c = ZSTD_createCCtx())) {
		error("cannot compress %zu bytes: out of memory for zstd", len);
		return NULL;
	}
	z = xmalloc(bound ? bound : 1);
	n = ZSTD_compressCCtx(st->zstd_c, z, bound, data, len, STORE_ZSTD_LEVEL);
	if (ZSTD_isError(n)) {
		error("cannot compress %zu bytes: %s", len, ZSTD_getErrorName(n));
		free(z);
		return NULL;
	}
	*zlen = n;
	return z;
}

int store_decompress(struct store *st, void *out, size_t len, const void *z, size_t zlen)
{
	if (!st->zstd_d && !(st->zstd_d = ZSTD_createDCtx()))
		return -1;
	return ZSTD_decompressDCtx(st->zstd_d, out, len, z ? z : "", zlen) == len ? 0 : -1;
}

void store_zstd_release(struct store *st)
{
	ZSTD_freeCCtx(st->zstd_c);
	ZSTD_freeDCtx(st->zstd_d);
	st->zstd_c = NULL;
	st->zstd_d = NULL;
}
