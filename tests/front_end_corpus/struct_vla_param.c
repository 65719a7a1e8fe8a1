// covers: an array of structs as a variable-length array parameter (the CUDA host file
// stays C: the SCoP becomes a call of a function in the kernel file, which gets the
// struct array as a pointer)
#include <stdio.h>
struct pt { double x; double y; };
static void compute(int n, int m, struct pt p[n][m])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j++)
      p[i][j].x = p[i][j - 1].y + 1;
#pragma endscop
}

int main(void)
{
  static struct pt p[20][30];
  for (int t = 0; t < 20; t++)
    for (int u = 0; u < 30; u++) { p[t][u].x = t; p[t][u].y = u * 0.5 + t; }
  compute(20, 30, p);
  compute(0, 30, p);
  compute(20, 1, (struct pt (*)[1]) p);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: p\n");
  for (int t = 0; t < 20; t++)
    for (int u = 0; u < 30; u++) fprintf(stderr, "%0.17g %0.17g\n", p[t][u].x, p[t][u].y);
  fprintf(stderr, "end   dump: p\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
