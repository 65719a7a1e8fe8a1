/*
 * polybench.h: common header of ppcg-py's own implementation of the
 * PolyBench/C 4.2.1 kernels.
 *
 * It follows the conventions of the suite (dataset and data type selection,
 * array declaration macros, loop bound macros, instruments, dump format) so
 * that the kernels can be compiled exactly as the suite's kernels are:
 *
 *   cc -I polybench/utilities -I polybench/<category>/<kernel> \
 *      polybench/utilities/polybench.c polybench/<category>/<kernel>/<kernel>.c
 *
 * Options (all -D macros):
 *   MINI_DATASET, SMALL_DATASET, MEDIUM_DATASET, LARGE_DATASET (default),
 *   EXTRALARGE_DATASET          dataset sizes (defined in each kernel header)
 *   DATA_TYPE_IS_FLOAT|DOUBLE|INT  data type (handled in each kernel header)
 *   POLYBENCH_USE_C99_PROTO     array parameters become variable-length arrays
 *   POLYBENCH_USE_SCALAR_LB     _PB_X loop bounds become the constants X
 *   POLYBENCH_PADDING_FACTOR    extra elements added to every array dimension
 *   POLYBENCH_TIME              print the kernel's run time in seconds
 *   POLYBENCH_NO_FLUSH_CACHE    do not flush the caches before timing
 *   POLYBENCH_DUMP_ARRAYS       dump the live-out arrays to stderr
 *   POLYBENCH_DUMP_FULL_PRECISION  dump values with full precision
 *                               (ppcg-py addition, used for verification)
 */
#ifndef POLYBENCH_H
# define POLYBENCH_H

# include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Array padding and declaration macros.                              */
/* ------------------------------------------------------------------ */

# ifndef POLYBENCH_PADDING_FACTOR
#  define POLYBENCH_PADDING_FACTOR 0
# endif

/* Select the constant size (default) or the size parameter (C99 VLA). */
# ifdef POLYBENCH_USE_C99_PROTO
#  define POLYBENCH_C99_SELECT(x, y) y
# else
#  define POLYBENCH_C99_SELECT(x, y) x
# endif

/* Array parameters of the kernel functions, e.g.
 *   DATA_TYPE POLYBENCH_2D(A, NI, NK, ni, nk)
 * expands to A[NI + 0][NK + 0] (or A[ni + 0][nk + 0] with C99 prototypes). */
# define POLYBENCH_1D(var, dim1, ddim1) \
  var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) \
  var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_3D(var, dim1, dim2, dim3, ddim1, ddim2, ddim3) \
  var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim3, ddim3) + POLYBENCH_PADDING_FACTOR]

/* Heap-allocated arrays in main: the variable is a pointer to the whole
 * array, e.g. POLYBENCH_2D_ARRAY_DECL(A, double, NI, NK, ni, nk) declares
 *   double (*A)[NI + 0][NK + 0] = (double (*)[NI + 0][NK + 0]) ...;
 * POLYBENCH_ARRAY(A) (= *A) is what is passed to the functions. */
# define POLYBENCH_DIM_(d, dd) [POLYBENCH_C99_SELECT(d, dd) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_SIZE_(d, dd) (POLYBENCH_C99_SELECT(d, dd) + POLYBENCH_PADDING_FACTOR)

# define POLYBENCH_1D_ARRAY_DECL(var, type, dim1, ddim1) \
  type (*var) POLYBENCH_DIM_(dim1, ddim1) = \
    (type (*) POLYBENCH_DIM_(dim1, ddim1)) \
    polybench_alloc_data(POLYBENCH_SIZE_(dim1, ddim1), (int) sizeof(type))
# define POLYBENCH_2D_ARRAY_DECL(var, type, dim1, dim2, ddim1, ddim2) \
  type (*var) POLYBENCH_DIM_(dim1, ddim1) POLYBENCH_DIM_(dim2, ddim2) = \
    (type (*) POLYBENCH_DIM_(dim1, ddim1) POLYBENCH_DIM_(dim2, ddim2)) \
    polybench_alloc_data((unsigned long long) POLYBENCH_SIZE_(dim1, ddim1) \
                         * POLYBENCH_SIZE_(dim2, ddim2), (int) sizeof(type))
# define POLYBENCH_3D_ARRAY_DECL(var, type, dim1, dim2, dim3, ddim1, ddim2, ddim3) \
  type (*var) POLYBENCH_DIM_(dim1, ddim1) POLYBENCH_DIM_(dim2, ddim2) \
              POLYBENCH_DIM_(dim3, ddim3) = \
    (type (*) POLYBENCH_DIM_(dim1, ddim1) POLYBENCH_DIM_(dim2, ddim2) \
              POLYBENCH_DIM_(dim3, ddim3)) \
    polybench_alloc_data((unsigned long long) POLYBENCH_SIZE_(dim1, ddim1) \
                         * POLYBENCH_SIZE_(dim2, ddim2) \
                         * POLYBENCH_SIZE_(dim3, ddim3), (int) sizeof(type))

# define POLYBENCH_ARRAY(x) *x
# define POLYBENCH_FREE_ARRAY(x) free((void *) x)

/* ------------------------------------------------------------------ */
/* Loop bounds: _PB_N (defined in the kernel headers) expands to      */
/* POLYBENCH_LOOP_BOUND(N, n): the parameter n, or the constant N.    */
/* ------------------------------------------------------------------ */

# ifdef POLYBENCH_USE_SCALAR_LB
#  define POLYBENCH_LOOP_BOUND(x, y) x
# else
#  define POLYBENCH_LOOP_BOUND(x, y) y
# endif

/* ------------------------------------------------------------------ */
/* Dead code elimination guard and array dumps.                       */
/* ------------------------------------------------------------------ */

# define POLYBENCH_DUMP_TARGET stderr
# define POLYBENCH_DUMP_START \
  fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
# define POLYBENCH_DUMP_FINISH \
  fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")
# define POLYBENCH_DUMP_BEGIN(s) \
  fprintf(POLYBENCH_DUMP_TARGET, "begin dump: %s", s)
# define POLYBENCH_DUMP_END(s) \
  fprintf(POLYBENCH_DUMP_TARGET, "\nend   dump: %s\n", s)

/* Without POLYBENCH_DUMP_ARRAYS the results are printed only under a
 * condition the compiler cannot prove false (so that the computation is
 * not removed as dead code) but that never holds in practice. */
# ifdef POLYBENCH_DUMP_ARRAYS
#  define POLYBENCH_DCE_ONLY_CODE
# else
#  define POLYBENCH_DCE_ONLY_CODE if (argc > 42 && !strcmp(argv[0], ""))
# endif

# define polybench_prevent_dce(func) \
  POLYBENCH_DCE_ONLY_CODE           \
  func

/* ------------------------------------------------------------------ */
/* Instruments (timing). Used as statements without parentheses:      */
/*   polybench_start_instruments;                                     */
/* ------------------------------------------------------------------ */

# ifdef POLYBENCH_TIME
#  define polybench_start_instruments polybench_timer_start()
#  define polybench_stop_instruments polybench_timer_stop()
#  define polybench_print_instruments polybench_timer_print()
# else
#  define polybench_start_instruments
#  define polybench_stop_instruments
#  define polybench_print_instruments
# endif

/* ------------------------------------------------------------------ */
/* Runtime (polybench.c).                                             */
/* ------------------------------------------------------------------ */

# ifdef __cplusplus
extern "C" {
# endif

/* Allocate n elements of elt_size bytes, aligned, zero-filled; exits on
 * failure. */
extern void *polybench_alloc_data(unsigned long long int n, int elt_size);
extern void polybench_free_data(void *ptr);

/* Evict the caches by touching a buffer larger than the last level. */
extern void polybench_flush_cache(void);

extern void polybench_timer_start(void);
extern void polybench_timer_stop(void);
extern void polybench_timer_print(void);

# ifdef __cplusplus
}
# endif

#endif /* !POLYBENCH_H */
