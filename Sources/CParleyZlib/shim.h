#ifndef PARLEY_ZLIB_SHIM_H
#define PARLEY_ZLIB_SHIM_H
#include <zlib.h>
#endif
