// covers: a scalar written in a loop has no known value there: its subscript is a may-access
#include <stdio.h>
#define N 40
static void compute(int n, int m, double A[N][N], double B[N], double C[N], int K[N])
{
  int i, k;
#pragma scop
  k = 0;
  for (i = 0; i < n; i++) {
    B[k] = 1.0;
    k = k + 1;
  }
#pragma endscop
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int t = 0; t < count; t++) fprintf(stderr, "%0.17g\n", v[t]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  static double A[N][N], B[N], C[N];
  static int K[N];
  for (int t = 0; t < N; t++) {
    B[t] = (t % 7) / 7.0; C[t] = (t % 5) - 2.0; K[t] = (t * 7) % N;
    for (int u = 0; u < N; u++) A[t][u] = ((t * 3 + u) % 11) / 11.0;
  }
  compute(10, 10, A, B, C, K);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * N); dump("B", B, N); dump("C", C, N);
  fprintf(stderr, "begin dump: K\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%d\n", K[t]);
  fprintf(stderr, "end   dump: K\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
