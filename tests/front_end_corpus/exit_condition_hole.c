// covers: a loop whose condition fails before it holds again (i != 7): C stops at the first
// failure, so does the model (it used to run 8..n-1 too); the exit value is 7 or n
#include <stdio.h>
#define N 40
static void compute(int n, int m, double A[N][N], double B[N], double C[N], int K[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n && i != 7; i++)
    B[i] = B[i] + 10.0;
  C[i] = -1.0;
  for (j = 0; j > 5 && j < n; j++)
    C[j] = 99.0;
  K[j + 1] = j;
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
  compute(20, 15, A, B, C, K);
  compute(0, 3, A, B, C, K);
  compute(-3, 0, A, B, C, K);
  compute(7, 24, A, B, C, K);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * N); dump("B", B, N); dump("C", C, N);
  fprintf(stderr, "begin dump: K\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%d\n", K[t]);
  fprintf(stderr, "end   dump: K\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
