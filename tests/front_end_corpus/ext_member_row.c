// covers: a member array of a struct element passed to declared-only functions, as a row (s[i][j].a[k]) and whole (s[i][j].a): printed as the member, not as its field array
// link: lib/external.c
#include <stdio.h>
#define N 40
#define M 30
double ext_matrix[N][M];
double ext_scale = 1.5;
double ext_trace(int k);
struct cell { int a[6][5]; double w; };
struct cell grid[4][3];
void add_to_row(int n, int *row, int v);
int block_sum(int block[6][5]);
void kernel(int n, int m, int sums[4][3])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < 6; k++)
        grid[i][j].a[k][k % 5] += i + j;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < 6; k++)
        add_to_row(5, grid[i][j].a[k], k - i);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      sums[i][j] = block_sum(grid[i][j].a);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      grid[i][j].w = sums[i][j] * 0.5;
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
  static int sums[4][3];
  static double out[4 * 3 * 31], t[65];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 6; k++)
        for (int l = 0; l < 5; l++)
          grid[i][j].a[k][l] = (i * 7 + j * 3 + k + l) % 11;
  kernel(4, 3, sums);
  kernel(0, 3, sums);
  kernel(3, 2, sums);
  for (int k = 0; k < 65; k++) t[k] = ext_trace(k);
  int o = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) {
      out[o++] = grid[i][j].w;
      for (int k = 0; k < 6; k++)
        for (int l = 0; l < 5; l++)
          out[o++] = grid[i][j].a[k][l];
    }
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("grid", out, o); dump("trace", t, 65);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
