// covers: __pencil_assume: the promise m >= n and n <= N narrows the SCoP's context; the call prints nothing
// link: lib/pencil.c
#include <stdio.h>
#define N 40
#define M 30
void __pencil_assume(int condition);
void kernel(int n, int m, double A[N][M], double x[N])
{
#pragma scop
  __pencil_assume(m >= n && n <= M);
  for (int i = 0; i < n; i++) {
    __pencil_assume(i < M);
    for (int j = i; j < m; j++)
      A[i][j] = A[i][j] * 0.5 + x[i];
  }
#pragma endscop
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.17g\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}
int main(void)
{
  static double A[N][M], x[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0;
    for (int j = 0; j < M; j++)
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
  }
  kernel(M - 4, M - 1, A, x);
  kernel(0, M, A, x);
  kernel(M, M, A, x);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * M);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
