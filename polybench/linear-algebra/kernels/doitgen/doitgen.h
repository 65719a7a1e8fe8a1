/*
 * doitgen.h: dataset sizes and data type of the doitgen kernel
 * (ppcg-py's own implementation of PolyBench/C 4.2.1).
 */
#ifndef POLYBENCH_DOITGEN_H
# define POLYBENCH_DOITGEN_H

/* Default to LARGE_DATASET. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
     && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

/* Sizes may also be given directly, e.g. -DNQ=8 -DNR=10 -DNP=12. */
# if !defined(NQ) && !defined(NR) && !defined(NP)

#  ifdef MINI_DATASET
#   define NQ 8
#   define NR 10
#   define NP 12
#  endif

#  ifdef SMALL_DATASET
#   define NQ 20
#   define NR 25
#   define NP 30
#  endif

#  ifdef MEDIUM_DATASET
#   define NQ 40
#   define NR 50
#   define NP 60
#  endif

#  ifdef LARGE_DATASET
#   define NQ 140
#   define NR 150
#   define NP 160
#  endif

#  ifdef EXTRALARGE_DATASET
#   define NQ 220
#   define NR 250
#   define NP 270
#  endif

# endif /* !(NQ && NR && NP) */

# define _PB_NQ POLYBENCH_LOOP_BOUND(NQ,nq)
# define _PB_NR POLYBENCH_LOOP_BOUND(NR,nr)
# define _PB_NP POLYBENCH_LOOP_BOUND(NP,np)

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

#endif /* !POLYBENCH_DOITGEN_H */
