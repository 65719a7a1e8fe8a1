/* Fuzz ci:39, shrunk: S_1 (all i) and S_0[0] share host value c0 = 0; isl placed them at two launches of kernel0 with c0 = 0, each running every instance at c0 = 0, so B was decremented twice. ast_build_group_coscheduled keeps them together. */
#include <stdio.h>
#include <math.h>
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define MAX(a, b) (((a) > (b)) ? (a) : (b))

static void compute(int n, int m, float B[4][4], float D[2][4])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    D[0][2] = B[i][i];
    B[2 * i][2 * i] -= 1;
  }
#pragma endscop
}

static void dump_float(const char *name, const float *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%0.9g\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  static float B[4][4];
  static float D[2][4];
  for (int x0 = 0; x0 < 4; x0++)
  for (int x1 = 0; x1 < 4; x1++)
    B[x0][x1] = (float) ((7 * x0 + 13 * x1 + 1) % 19) / 19 - (float) 0.25;
  for (int x0 = 0; x0 < 2; x0++)
  for (int x1 = 0; x1 < 4; x1++)
    D[x0][x1] = (float) ((7 * x0 + 13 * x1 + 6) % 19) / 19 - (float) 0.25;
  compute(2, 2, B, D);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump_float("B", &B[0][0], 4 * 4);
  dump_float("D", &D[0][0], 2 * 4);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
