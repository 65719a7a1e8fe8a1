/* Iterators declared outside the SCoP keep their exit values after it: an inner
   loop counting down (its value at the last outer iteration), a loop that runs
   no iteration (k keeps its start), a global stepping by 4. */
#include <stdio.h>
int g;
static void f(int n, int m, double A[100][100], int *oi, int *oj, int *ok, int *og)
{
  int i, j, k;
  k = 77;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = m - 1; j >= i; j--)
      A[i][j] = 2.0 * i + j;
  for (k = 0; k < n - 200; k++)
    A[k][0] = 1.0;
  for (g = 3; g < n; g += 4)
    A[g][g] += 1.0;
#pragma endscop
  *oi = i; *oj = j; *ok = k; *og = g;
}
int main(void)
{
  static double A[100][100];
  int r[4];
  f(37, 50, A, &r[0], &r[1], &r[2], &r[3]);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int a = 0; a < 100; a++) for (int b = 0; b < 100; b++) fprintf(stderr, "%0.17g\n", A[a][b]);
  fprintf(stderr, "end   dump: A\nbegin dump: r\n%d %d %d %d\nend   dump: r\n==END   DUMP_ARRAYS==\n", r[0], r[1], r[2], r[3]);
  return 0;
}
