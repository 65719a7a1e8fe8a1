/*
 * deriche.h: dataset sizes and data type of the deriche kernel
 * (ppcg-py's own implementation of PolyBench/C 4.2.1).
 */
#ifndef POLYBENCH_DERICHE_H
# define POLYBENCH_DERICHE_H

/* Default to LARGE_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
     && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

/* Sizes may also be given directly, e.g. -DW=64 -DH=64. */
# if !defined(W) && !defined(H)

#  ifdef MINI_DATASET
#   define W 64
#   define H 64
#  endif

#  ifdef SMALL_DATASET
#   define W 192
#   define H 128
#  endif

#  ifdef MEDIUM_DATASET
#   define W 720
#   define H 480
#  endif

#  ifdef LARGE_DATASET
#   define W 4096
#   define H 2160
#  endif

#  ifdef EXTRALARGE_DATASET
#   define W 7680
#   define H 4320
#  endif

# endif /* !(W && H) */

# define _PB_W POLYBENCH_LOOP_BOUND(W,w)
# define _PB_H POLYBENCH_LOOP_BOUND(H,h)

/* Default data type: float. */
# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_FLOAT
# endif

# ifdef DATA_TYPE_IS_INT
#  define DATA_TYPE int
#  define DATA_PRINTF_MODIFIER "%d "
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x,y) pow(x,y)
# endif

# ifdef DATA_TYPE_IS_FLOAT
#  define DATA_TYPE float
#  ifdef POLYBENCH_DUMP_FULL_PRECISION
#   define DATA_PRINTF_MODIFIER "%0.9g "
#  else
#   define DATA_PRINTF_MODIFIER "%0.2f "
#  endif
#  define SCALAR_VAL(x) x##f
#  define SQRT_FUN(x) sqrtf(x)
#  define EXP_FUN(x) expf(x)
#  define POW_FUN(x,y) powf(x,y)
# endif

# ifdef DATA_TYPE_IS_DOUBLE
#  define DATA_TYPE double
#  ifdef POLYBENCH_DUMP_FULL_PRECISION
#   define DATA_PRINTF_MODIFIER "%0.17g "
#  else
#   define DATA_PRINTF_MODIFIER "%0.2lf "
#  endif
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x,y) pow(x,y)
# endif

#endif /* !POLYBENCH_DERICHE_H */
