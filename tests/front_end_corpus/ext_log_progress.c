// covers: a call to a declared-only function at the top of each outer iteration (a logger that reads the global ext_matrix): the outer loop runs on the host, its inner loop as a kernel per iteration, ext_matrix copied back and forth around each call
// link: lib/external.c
#include <stdio.h>
#define N 40
#define M 30
double ext_matrix[N][M];
double ext_scale = 1.5;
void log_progress(int i);
double ext_trace(int k);
void kernel(int n, int m, double B[N][M], double x[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    log_progress(i);
    for (int j = 0; j < m; j++)
      ext_matrix[i][j] = ext_matrix[i][j] * 0.5 + B[i][j] * x[i];
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
  static double B[N][M], x[N], t[65];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0;
    for (int j = 0; j < M; j++) {
      ext_matrix[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
    }
  }
  kernel(N - 3, M - 4, B, x);
  kernel(0, M, B, x);
  kernel(N, 0, B, x);
  for (int k = 0; k < 65; k++) t[k] = ext_trace(k);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &ext_matrix[0][0], N * M); dump("B", &B[0][0], N * M); dump("x", x, N); dump("trace", t, 65);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
