#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static void mm(int n, int m, int k, const double *a, const double *b, double *c) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      c[i * m + j] = 0.0;
      for (int l = 0; l < k; l++)
        c[i * m + j] += a[i * k + l] * b[l * m + j];
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, m = n, k = n;
  double *a = malloc(sizeof(double) * n * k), *b = malloc(sizeof(double) * k * m), *c = malloc(sizeof(double) * n * m);
  for (int i = 0; i < n * k; i++) a[i] = (i % 13) * 0.5;
  for (int i = 0; i < k * m; i++) b[i] = (i % 7) - 3.0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  mm(n, m, k, a, b, c);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = 0; for (int i = 0; i < n * m; i += 97) s += c[i];
  fprintf(stderr, "%.6f s\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  printf("%.3f\n", s);
  return 0;
}
