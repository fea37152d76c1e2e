#ifndef REVPERF_UTIL_COMMON_H
#define REVPERF_UTIL_COMMON_H

/* Included last by every engine and command source file. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/strbuf.h"

typedef int64_t ns_t;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UNUSED(x) ((void)(x))

#include "util/banned.h"

#endif
