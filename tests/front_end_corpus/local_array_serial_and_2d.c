// covers: arrays declared in a serial loop (on the host) and a 2-d one in a parallel loop
#include <stdio.h>
#define N 40
static void compute(int n, int m, double A[N][N], double B[N][N], double C[N])
{
  int i, j, k;
#pragma scop
  for (i = 1; i < n; i++) {
    double t[2];
    t[0] = C[i - 1];
    t[1] = t[0] * 0.5;
    C[i] = t[1] + A[i][0];
  }
  for (i = 0; i < n; i++) {
    double u[3][2];
    for (j = 0; j < 3; j++)
      for (k = 0; k < 2; k++)
        u[j][k] = A[i][j + k];
    for (j = 0; j < m; j++)
      B[i][j] = u[j % 3][j % 2] - u[2][1];
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
  static double A[N][N], B[N][N], C[N];
  static const int sizes[3][2] = {{37, 33}, {1, 5}, {0, 2}};
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  for (int r = 0; r < 3; r++) {
    for (int t = 0; t < N; t++) {
      C[t] = 0;
      for (int u = 0; u < N; u++) { A[t][u] = ((t * 13 + u * 7 + r) % 100) / 100.0; B[t][u] = 0; }
    }
    compute(sizes[r][0], sizes[r][1], A, B, C);
    char tag[3][8];
    for (int a = 0; a < 3; a++) snprintf(tag[a], sizeof tag[a], "%c%d", "ABC"[a], r);
    dump(tag[0], &A[0][0], N * N); dump(tag[1], &B[0][0], N * N); dump(tag[2], C, N);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
