/*
 * 3mm.h: dataset sizes and data type of the 3mm kernel
 * (ppcg-py's own implementation of PolyBench/C 4.2.1).
 */
#ifndef POLYBENCH_3MM_H
# define POLYBENCH_3MM_H

/* Default to LARGE_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
     && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

/* Sizes may also be given directly, e.g. -DNI=16 -DNJ=18 -DNK=20 -DNL=22 -DNM=24. */
# if !defined(NI) && !defined(NJ) && !defined(NK) && !defined(NL) && !defined(NM)

#  ifdef MINI_DATASET
#   define NI 16
#   define NJ 18
#   define NK 20
#   define NL 22
#   define NM 24
#  endif

#  ifdef SMALL_DATASET
#   define NI 40
#   define NJ 50
#   define NK 60
#   define NL 70
#   define NM 80
#  endif

#  ifdef MEDIUM_DATASET
#   define NI 180
#   define NJ 190
#   define NK 200
#   define NL 210
#   define NM 220
#  endif

#  ifdef LARGE_DATASET
#   define NI 800
#   define NJ 900
#   define NK 1000
#   define NL 1100
#   define NM 1200
#  endif

#  ifdef EXTRALARGE_DATASET
#   define NI 1600
#   define NJ 1800
#   define NK 2000
#   define NL 2200
#   define NM 2400
#  endif

# endif /* !(NI && NJ && NK && NL && NM) */

# define _PB_NI POLYBENCH_LOOP_BOUND(NI,ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ,nj)
# define _PB_NK POLYBENCH_LOOP_BOUND(NK,nk)
# define _PB_NL POLYBENCH_LOOP_BOUND(NL,nl)
# define _PB_NM POLYBENCH_LOOP_BOUND(NM,nm)

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

#endif /* !POLYBENCH_3MM_H */
