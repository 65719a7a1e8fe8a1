// covers: array members of a two-dimensional array of structs, a[i][j].c[k][l], read and
// written element by element, with a scalar member beside them
#include <stdio.h>
#define N 12
struct cell { int tag; double c[3][4]; };
static void compute(int n, int m, struct cell a[N][N], double s[N][N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 4; l++) {
          a[i][j].c[k][l] = a[i][j].c[k][l] * 0.5 + a[i][j].tag;
          s[i][j] += a[i][j].c[k][l];
        }
#pragma endscop
}

int main(void)
{
  static struct cell a[N][N];
  static double s[N][N];
  for (int t = 0; t < N; t++)
    for (int u = 0; u < N; u++) {
      a[t][u].tag = (t + 2 * u) % 5;
      s[t][u] = 0.0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 4; l++) a[t][u].c[k][l] = (t * 3 + u + k * 7 + l) % 11;
    }
  compute(10, 7, a, s);
  compute(0, 5, a, s);
  compute(12, 12, a, s);
  compute(3, 0, a, s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: a\n");
  for (int t = 0; t < N; t++)
    for (int u = 0; u < N; u++) {
      fprintf(stderr, "%d", a[t][u].tag);
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 4; l++) fprintf(stderr, " %0.17g", a[t][u].c[k][l]);
      fprintf(stderr, "\n");
    }
  fprintf(stderr, "end   dump: a\n");
  fprintf(stderr, "begin dump: s\n");
  for (int t = 0; t < N; t++)
    for (int u = 0; u < N; u++) fprintf(stderr, "%0.17g\n", s[t][u]);
  fprintf(stderr, "end   dump: s\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
