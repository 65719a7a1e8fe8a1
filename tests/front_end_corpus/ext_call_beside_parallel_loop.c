// covers: logger calls before and after a parallel nest, the first sharing no data with it (isl leaves the two unordered), the second reading what it wrote: the calls run on the host; verified on every target (isl may fuse the calls and the nest into one band with no parallel member, and then the SCoP runs on the host)
// link: lib/external.c
#include <stdio.h>
#include <string.h>
#define N 40
#define M 30
double ext_matrix[N][M];
double ext_scale = 1.5;
double ext_trace(int k);
void log_value(double v);
void kernel(int n, int m, double A[N][M], double B[N][M], double x[N], double y[N])
{
  double s;
#pragma scop
  s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  log_value(s);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = B[i][j] * s + A[i][j];
  log_value(A[n / 2][m / 2]);
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
  static double A[N][M], B[N][M], x[N], y[N], t[65];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0; y[i] = (i % 7) / 7.0 + 0.25;
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
      ext_matrix[i][j] = ((i + j) % 3) / 3.0;
    }
  }
  kernel(N - 3, M - 4, A, B, x, y);
  kernel(0, M, A, B, x, y);
  kernel(N, 1, A, B, x, y);
  for (int k = 0; k < 65; k++) t[k] = ext_trace(k);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * M); dump("B", &B[0][0], N * M); dump("x", x, N); dump("y", y, N); dump("trace", t, 65);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
