// covers: an array declared inside a parallel loop: expanded, one copy per iteration
#include <stdio.h>
#define N 40
static void compute(int n, int m, double A[N][N], double B[N][N], double C[N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    double tmp[4];
    for (k = 0; k < 4; k++)
      tmp[k] = A[i][k] * (k + 1);
    for (j = 0; j < m; j++)
      B[i][j] = tmp[j % 4] + tmp[(j + 1) % 4];
    C[i] = tmp[0] + tmp[3];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      int w[2];
      w[0] = i + j;
      w[1] = i - j;
      A[i][j] = w[0] * 0.5 + w[1] * 0.25;
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
