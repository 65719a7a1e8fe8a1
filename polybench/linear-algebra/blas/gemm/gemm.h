/*
 * gemm.h: dataset sizes and data type of the gemm kernel
 * (ppcg-py's own implementation of PolyBench/C 4.2.1).
 */
#ifndef POLYBENCH_GEMM_H
# define POLYBENCH_GEMM_H

/* Default to LARGE_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
     && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

/* Sizes may also be given directly, e.g. -DNI=20 -DNJ=25 -DNK=30. */
# if !defined(NI) && !defined(NJ) && !defined(NK)

#  ifdef MINI_DATASET
#   define NI 20
#   define NJ 25
#   define NK 30
#  endif

#  ifdef SMALL_DATASET
#   define NI 60
#   define NJ 70
#   define NK 80
#  endif

#  ifdef MEDIUM_DATASET
#   define NI 200
#   define NJ 220
#   define NK 240
#  endif

#  ifdef LARGE_DATASET
#   define NI 1000
#   define NJ 1100
#   define NK 1200
#  endif

#  ifdef EXTRALARGE_DATASET
#   define NI 2000
#   define NJ 2300
#   define NK 2600
#  endif

# endif /* !(NI && NJ && NK) */

# define _PB_NI POLYBENCH_LOOP_BOUND(NI,ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ,nj)
# define _PB_NK POLYBENCH_LOOP_BOUND(NK,nk)

/* Default data type: double. */
# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_DOUBLE
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

#endif /* !POLYBENCH_GEMM_H */
