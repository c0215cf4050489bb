// <immintrin.h> for the AVX-512 port's files. GCC 12's AVX-512 headers start some intrinsics from
// _mm512_undefined_*() and then warn about it (GCC bug 105593, fixed in GCC 13): not an uninitialized
// value of ours, so those warnings are off for the rest of each file that includes this one.
#pragma once
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
