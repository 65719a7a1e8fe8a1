// covers: rejected: a non-affine subscript (a product of iterators) of an array whose size is not affine (nothing bounds the may-access)
// expect: 11:27: and the size of array 'A' ('n * m') is not affine, so it cannot bound the access (pass the size as a parameter of its own)
#include <stdio.h>
#define N 40
static void compute(int n, int m, double A[n * m], double B[n * n + 1][N], double C[n], int K[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m && j < N; j++)
      B[i][j] = B[i][j] + A[i * j];
    C[i] = A[i + 1] * 2.0;
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
  static double A[N * N], B[N * N + 1][N], C[N];
  static int K[N];
  for (int t = 0; t < N; t++) {
    C[t] = (t % 5) - 2.0; K[t] = (t * 7) % N;
    for (int u = 0; u < N; u++) { A[t * N + u] = ((t * 3 + u) % 11) / 11.0; B[t][u] = (t + u) % 3; }
  }
  compute(20, 3, A, B, C, K);
  compute(0, 5, A, B, C, K);
  compute(6, 0, A, B, C, K);
  compute(33, 2, A, B, C, K);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", A, N * N); dump("B", &B[0][0], N * N); dump("C", C, N);
  fprintf(stderr, "begin dump: K\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%d\n", K[t]);
  fprintf(stderr, "end   dump: K\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
