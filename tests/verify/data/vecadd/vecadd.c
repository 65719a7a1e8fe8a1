/* c = a + b over 1000 elements: four blocks of 256 threads, the last partial. */
#include <stdlib.h>
#include "pbdump.h"

#define N 1000

static void kernel_vecadd(int n, double *a, double *b, double *c)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    c[i] = a[i] + b[i];
#pragma endscop
}

int main(void)
{
  double *a = (double *) malloc(N * sizeof(double));
  double *b = (double *) malloc(N * sizeof(double));
  double *c = (double *) malloc(N * sizeof(double));
  int i;
  for (i = 0; i < N; i++) {
    a[i] = i * 0.5;
    b[i] = (N - i) / 4.0;
  }
  kernel_vecadd(N, a, b, c);
  pbdump_begin();
  pbdump_doubles("c", c, N);
  pbdump_end();
  free(a);
  free(b);
  free(c);
  return 0;
}
