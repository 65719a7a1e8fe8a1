/* The size and the helper macro jacobi.c uses: a change here must regenerate
 * jacobi's CUDA (or C) files, which the dependency file ppcg-py -MD writes arranges. */
#ifndef JACOBI_H
#define JACOBI_H

#define N 200
#define TSTEPS 20
#define AVERAGE5(c, w, e, n, s) (0.2 * ((c) + (w) + (e) + (n) + (s)))

/* C linkage, so that main.c (C) links with jacobi_host.cu (C++ for nvcc). */
#ifdef __cplusplus
extern "C" {
#endif
void jacobi_2d(int tsteps, double A[N][N], double B[N][N]);
#ifdef __cplusplus
}
#endif

#endif
