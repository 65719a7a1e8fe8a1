/*
 * cublas_v2.h for the CPU emulation of CUDA (cuda_emu.h): the subset of cuBLAS's v2
 * API that benchmarks/cublas_way.py's programs call, so that they can be checked
 * against gcc's PolyBench without a GPU.
 *
 * Each routine is a straight loop nest written from the reference BLAS definition
 * (netlib's dgemm, dsyrk, ...): column-major matrices with leading dimensions, the
 * same argument checks (a bad one returns CUBLAS_STATUS_INVALID_VALUE, as cuBLAS does
 * where reference BLAS calls xerbla), and beta == 0 meaning "the output is not read"
 * (so a fresh device buffer, NaN-filled by the emulation's cudaMalloc, is fine there).
 * Nothing is optimized: the results equal cuBLAS's up to the order of rounding.
 * Device memory is host memory here, so alpha and beta are read the same way in
 * either pointer mode.  trmm is cuBLAS's out-of-place form (C = alpha op(A) B), which
 * also allows C == B.  Self-contained: inline functions, nothing to link.
 */
#ifndef PPCG_EMU_CUBLAS_V2_H
#define PPCG_EMU_CUBLAS_V2_H

#include <cuda_runtime.h>
#include <vector>

#define CUBLAS_VER_MAJOR 12
#define CUBLAS_VER_MINOR 0
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;

struct cublasContext {
  cublasPointerMode_t pointer_mode;
  cudaStream_t stream;
};
typedef struct cublasContext *cublasHandle_t;

inline const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

inline const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "the operation completed successfully";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "an error was detected when checking the current licensing";
  }
  return "unknown error";
}

inline cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext{CUBLAS_POINTER_MODE_HOST, 0};
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  handle->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = handle->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}

/* Work runs to completion when called, so the stream only needs to be remembered. */
inline cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

namespace ppcg_emu_blas {

inline int at_least_one(int n) { return n > 1 ? n : 1; }

inline bool is_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
/* For real types CUBLAS_OP_C is the transpose too. */
inline bool transposed(cublasOperation_t op) { return op != CUBLAS_OP_N; }
inline bool is_fill(cublasFillMode_t fill) { return fill == CUBLAS_FILL_MODE_LOWER || fill == CUBLAS_FILL_MODE_UPPER; }
inline bool is_side(cublasSideMode_t side) { return side == CUBLAS_SIDE_LEFT || side == CUBLAS_SIDE_RIGHT; }
inline bool is_diag(cublasDiagType_t diag) { return diag == CUBLAS_DIAG_UNIT || diag == CUBLAS_DIAG_NON_UNIT; }

/* Element (i, j) of a column-major matrix with leading dimension ld. */
template <class T> inline T &at(T *a, int ld, int i, int j) { return a[(size_t)i + (size_t)j * (size_t)ld]; }
template <class T> inline T at(const T *a, int ld, int i, int j) { return a[(size_t)i + (size_t)j * (size_t)ld]; }

/* Element (i, j) of op(A). */
template <class T> inline T op_at(const T *a, int ld, bool trans, int i, int j) {
  return trans ? at(a, ld, j, i) : at(a, ld, i, j);
}

/* Position of element i of a vector of n elements with stride inc: a negative stride
   walks it backwards from its last element, as reference BLAS does. */
inline size_t vec(int i, int n, int inc) {
  return inc > 0 ? (size_t)i * (size_t)inc : (size_t)(n - 1 - i) * (size_t)(-inc);
}

/* beta * c, where beta == 0 does not read c. */
template <class T> inline T scaled(T beta, T c) { return beta == T(0) ? T(0) : beta * c; }

/* Is (i, j) in the stored triangle `fill` (diagonal included)? */
inline bool in_triangle(cublasFillMode_t fill, int i, int j) { return fill == CUBLAS_FILL_MODE_UPPER ? i <= j : i >= j; }

template <class T>
cublasStatus_t gemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, T *C, int ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ta = transposed(transa), tb = transposed(transb);
  if (!is_op(transa) || !is_op(transb) || m < 0 || n < 0 || k < 0 || !alpha || !beta ||
      lda < at_least_one(ta ? k : m) || ldb < at_least_one(tb ? n : k) || ldc < at_least_one(m))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      T sum = 0;
      if (*alpha != T(0))
        for (int l = 0; l < k; l++) sum += op_at(A, lda, ta, i, l) * op_at(B, ldb, tb, l, j);
      at(C, ldc, i, j) = *alpha * sum + scaled(*beta, at(C, ldc, i, j));
    }
  return CUBLAS_STATUS_SUCCESS;
}

/* C = alpha op(A) op(A)^T + beta C on the `uplo` triangle of the n x n matrix C. */
template <class T>
cublasStatus_t syrk(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k,
                    const T *alpha, const T *A, int lda, const T *beta, T *C, int ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool t = transposed(trans);
  if (!is_fill(uplo) || !is_op(trans) || n < 0 || k < 0 || !alpha || !beta || lda < at_least_one(t ? k : n) ||
      ldc < at_least_one(n))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      if (!in_triangle(uplo, i, j)) continue;
      T sum = 0;
      if (*alpha != T(0))
        for (int l = 0; l < k; l++) sum += op_at(A, lda, t, i, l) * op_at(A, lda, t, j, l);
      at(C, ldc, i, j) = *alpha * sum + scaled(*beta, at(C, ldc, i, j));
    }
  return CUBLAS_STATUS_SUCCESS;
}

/* C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C on the `uplo` triangle of C. */
template <class T>
cublasStatus_t syr2k(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k,
                     const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, T *C, int ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool t = transposed(trans);
  int rows = at_least_one(t ? k : n);
  if (!is_fill(uplo) || !is_op(trans) || n < 0 || k < 0 || !alpha || !beta || lda < rows || ldb < rows ||
      ldc < at_least_one(n))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      if (!in_triangle(uplo, i, j)) continue;
      T sum = 0;
      if (*alpha != T(0))
        for (int l = 0; l < k; l++)
          sum += op_at(A, lda, t, i, l) * op_at(B, ldb, t, j, l) + op_at(B, ldb, t, i, l) * op_at(A, lda, t, j, l);
      at(C, ldc, i, j) = *alpha * sum + scaled(*beta, at(C, ldc, i, j));
    }
  return CUBLAS_STATUS_SUCCESS;
}

/* Element (i, j) of the symmetric matrix whose `uplo` triangle A holds. */
template <class T> inline T sym_at(const T *a, int ld, cublasFillMode_t uplo, int i, int j) {
  return in_triangle(uplo, i, j) ? at(a, ld, i, j) : at(a, ld, j, i);
}

/* C = alpha A B + beta C (LEFT, A m x m) or alpha B A + beta C (RIGHT, A n x n), A symmetric. */
template <class T>
cublasStatus_t symm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, int m, int n,
                    const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, T *C, int ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool left = side == CUBLAS_SIDE_LEFT;
  if (!is_side(side) || !is_fill(uplo) || m < 0 || n < 0 || !alpha || !beta || lda < at_least_one(left ? m : n) ||
      ldb < at_least_one(m) || ldc < at_least_one(m))
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      T sum = 0;
      if (*alpha != T(0)) {
        if (left)
          for (int l = 0; l < m; l++) sum += sym_at(A, lda, uplo, i, l) * at(B, ldb, l, j);
        else
          for (int l = 0; l < n; l++) sum += at(B, ldb, i, l) * sym_at(A, lda, uplo, l, j);
      }
      at(C, ldc, i, j) = *alpha * sum + scaled(*beta, at(C, ldc, i, j));
    }
  return CUBLAS_STATUS_SUCCESS;
}

/* Is element (i, j) of the triangular matrix stored (not a structural zero)? Its value,
   1 on a unit diagonal (not read). */
template <class T> inline bool tri_at(const T *a, int ld, cublasFillMode_t uplo, cublasDiagType_t diag, int i, int j,
                                      T *value) {
  if (!in_triangle(uplo, i, j)) return false;
  *value = i == j && diag == CUBLAS_DIAG_UNIT ? T(1) : at(a, ld, i, j);
  return true;
}

/* C = alpha op(A) B (LEFT, A m x m) or alpha B op(A) (RIGHT, A n x n), A triangular;
   cuBLAS's out-of-place form, C == B allowed. */
template <class T>
cublasStatus_t trmm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                    cublasDiagType_t diag, int m, int n, const T *alpha, const T *A, int lda, const T *B, int ldb,
                    T *C, int ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool left = side == CUBLAS_SIDE_LEFT, t = transposed(trans);
  if (!is_side(side) || !is_fill(uplo) || !is_op(trans) || !is_diag(diag) || m < 0 || n < 0 || !alpha ||
      lda < at_least_one(left ? m : n) || ldb < at_least_one(m) || ldc < at_least_one(m))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::vector<T> out((size_t)m * (size_t)n);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      T sum = 0, a;
      if (*alpha != T(0)) {
        if (left) {
          for (int l = 0; l < m; l++)
            if (t ? tri_at(A, lda, uplo, diag, l, i, &a) : tri_at(A, lda, uplo, diag, i, l, &a))
              sum += a * at(B, ldb, l, j);
        } else {
          for (int l = 0; l < n; l++)
            if (t ? tri_at(A, lda, uplo, diag, j, l, &a) : tri_at(A, lda, uplo, diag, l, j, &a))
              sum += at(B, ldb, i, l) * a;
        }
      }
      out[(size_t)i + (size_t)j * (size_t)m] = *alpha * sum;
    }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) at(C, ldc, i, j) = out[(size_t)i + (size_t)j * (size_t)m];
  return CUBLAS_STATUS_SUCCESS;
}

/* y = alpha op(A) x + beta y, A m x n. */
template <class T>
cublasStatus_t gemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const T *alpha, const T *A,
                    int lda, const T *x, int incx, const T *beta, T *y, int incy) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool t = transposed(trans);
  if (!is_op(trans) || m < 0 || n < 0 || !alpha || !beta || lda < at_least_one(m) || incx == 0 || incy == 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  int xs = t ? m : n, ys = t ? n : m;
  for (int i = 0; i < ys; i++) {
    T sum = 0;
    if (*alpha != T(0))
      for (int l = 0; l < xs; l++) sum += op_at(A, lda, t, i, l) * x[vec(l, xs, incx)];
    T &yi = y[vec(i, ys, incy)];
    yi = *alpha * sum + scaled(*beta, yi);
  }
  return CUBLAS_STATUS_SUCCESS;
}

/* A = alpha x y^T + A, A m x n. */
template <class T>
cublasStatus_t ger(cublasHandle_t handle, int m, int n, const T *alpha, const T *x, int incx, const T *y, int incy,
                   T *A, int lda) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || !alpha || incx == 0 || incy == 0 || lda < at_least_one(m)) return CUBLAS_STATUS_INVALID_VALUE;
  if (*alpha == T(0)) return CUBLAS_STATUS_SUCCESS;
  for (int j = 0; j < n; j++) {
    T temp = *alpha * y[vec(j, n, incy)];
    for (int i = 0; i < m; i++) at(A, lda, i, j) += x[vec(i, m, incx)] * temp;
  }
  return CUBLAS_STATUS_SUCCESS;
}

/* y = alpha x + y. */
template <class T>
cublasStatus_t axpy(cublasHandle_t handle, int n, const T *alpha, const T *x, int incx, T *y, int incy) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (*alpha == T(0)) return CUBLAS_STATUS_SUCCESS;
  for (int i = 0; i < n; i++) y[vec(i, n, incy)] += *alpha * x[vec(i, n, incx)];
  return CUBLAS_STATUS_SUCCESS;
}

/* x = alpha x; nothing for a stride that is not positive, as reference BLAS. */
template <class T> cublasStatus_t scal(cublasHandle_t handle, int n, const T *alpha, T *x, int incx) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (incx <= 0) return CUBLAS_STATUS_SUCCESS;
  for (int i = 0; i < n; i++) x[(size_t)i * (size_t)incx] *= *alpha;
  return CUBLAS_STATUS_SUCCESS;
}

/* y = x. */
template <class T> cublasStatus_t copy(cublasHandle_t handle, int n, const T *x, int incx, T *y, int incy) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  for (int i = 0; i < n; i++) y[vec(i, n, incy)] = x[vec(i, n, incx)];
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace ppcg_emu_blas

/* cublasS* (float) and cublasD* (double), cuBLAS's v2 signatures. */
#define PPCG_EMU_CUBLAS_ROUTINES(P, T)                                                                          \
  inline cublasStatus_t cublas##P##gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,      \
                                        int n, int k, const T *alpha, const T *A, int lda, const T *B, int ldb,  \
                                        const T *beta, T *C, int ldc) {                                          \
    return ppcg_emu_blas::gemm<T>(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                      \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n, \
                                        int k, const T *alpha, const T *A, int lda, const T *beta, T *C,         \
                                        int ldc) {                                                               \
    return ppcg_emu_blas::syrk<T>(h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);                            \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##syr2k(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,       \
                                         int n, int k, const T *alpha, const T *A, int lda, const T *B, int ldb, \
                                         const T *beta, T *C, int ldc) {                                         \
    return ppcg_emu_blas::syr2k<T>(h, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                   \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##symm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int m,   \
                                        int n, const T *alpha, const T *A, int lda, const T *B, int ldb,         \
                                        const T *beta, T *C, int ldc) {                                          \
    return ppcg_emu_blas::symm<T>(h, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);                     \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##trmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,          \
                                        cublasOperation_t trans, cublasDiagType_t diag, int m, int n,            \
                                        const T *alpha, const T *A, int lda, const T *B, int ldb, T *C,          \
                                        int ldc) {                                                               \
    return ppcg_emu_blas::trmm<T>(h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc);              \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##gemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const T *alpha, \
                                        const T *A, int lda, const T *x, int incx, const T *beta, T *y,          \
                                        int incy) {                                                              \
    return ppcg_emu_blas::gemv<T>(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);                        \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##ger(cublasHandle_t h, int m, int n, const T *alpha, const T *x, int incx,     \
                                       const T *y, int incy, T *A, int lda) {                                    \
    return ppcg_emu_blas::ger<T>(h, m, n, alpha, x, incx, y, incy, A, lda);                                      \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##axpy(cublasHandle_t h, int n, const T *alpha, const T *x, int incx, T *y,     \
                                        int incy) {                                                              \
    return ppcg_emu_blas::axpy<T>(h, n, alpha, x, incx, y, incy);                                                \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##scal(cublasHandle_t h, int n, const T *alpha, T *x, int incx) {               \
    return ppcg_emu_blas::scal<T>(h, n, alpha, x, incx);                                                         \
  }                                                                                                              \
  inline cublasStatus_t cublas##P##copy(cublasHandle_t h, int n, const T *x, int incx, T *y, int incy) {         \
    return ppcg_emu_blas::copy<T>(h, n, x, incx, y, incy);                                                       \
  }

PPCG_EMU_CUBLAS_ROUTINES(S, float)
PPCG_EMU_CUBLAS_ROUTINES(D, double)
#undef PPCG_EMU_CUBLAS_ROUTINES

#endif
