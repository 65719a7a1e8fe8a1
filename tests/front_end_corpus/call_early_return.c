// covers: a callee that returns before its end (extract/returns.py: the value becomes g's choice, v > 0 ? v : -v)
#include <stdio.h>
#include <math.h>
#define N 40
#define M 30
static double g(double v)
{
  if (v > 0)
    return v;
  return -v;
}
void kernel(int n, int m, double A[N][M], double B[N][M], double x[N], double y[N], int K[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    x[i] = g(y[i]);
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
  static double A[N][M], B[N][M], x[N], y[N], k[N];
  static int K[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0; y[i] = (i % 7) / 7.0 + 0.25; K[i] = i * 3 - 20;
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
    }
  }
  kernel(N - 3, M - 4, A, B, x, y, K);
  for (int i = 0; i < N; i++) k[i] = K[i];
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * M); dump("B", &B[0][0], N * M); dump("x", x, N); dump("y", y, N); dump("K", k, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
