/* Found by tests/fuzz (2620:180), shrunk. */
#include <stdio.h>
#include <math.h>

static inline void bump_int(int *p, int v) { *p = (*p + v) % 1009; }

static void compute(int n, int m, double alpha, int A[6][6], double B[], double C[2][2], float D[2][2])
{
#pragma scop
  {
    int j = 0;
    while (j < n && A[0 + j][j] <= 0) {
      bump_int(&A[j][j], A[j][j]);
      j++;
    }
  }
  double v = 1;
  if (0 > n - 3) {
    double v = (fmax(D[0 + 1 + 2][1], 0.125) + ((float) B[0]));
  }
  C[0][0] += ((cos(D[0 - 2 + 2][0]) - fabs(B[0])) + (0.2 * alpha));
#pragma endscop
}

static void dump_double(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%0.17g\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}

static void dump_float(const char *name, const float *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%0.9g\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}

static void dump_int(const char *name, const int *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%d\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  static int A[6][6];
  static double B[2];
  static double C[2][2];
  static float D[2][2];
  for (int x0 = 0; x0 < 6; x0++)
  for (int x1 = 0; x1 < 6; x1++)
    A[x0][x1] = (7 * x0 + 13 * x1 + 1) % 17 - 5;
  for (int x0 = 0; x0 < 2; x0++)
    B[x0] = (double) ((7 * x0 + 6) % 19) / 19 - (double) 0.25;
  for (int x0 = 0; x0 < 2; x0++)
  for (int x1 = 0; x1 < 2; x1++)
    C[x0][x1] = (double) ((7 * x0 + 13 * x1 + 11) % 19) / 19 - (double) 0.25;
  for (int x0 = 0; x0 < 2; x0++)
  for (int x1 = 0; x1 < 2; x1++)
    D[x0][x1] = (float) ((7 * x0 + 13 * x1 + 16) % 19) / 19 - (float) 0.25;
  compute(5, 23, 1.5, A, B, C, D);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump_int("A", &A[0][0], 6 * 6);
  dump_double("B", &B[0], 2);
  dump_double("C", &C[0][0], 2 * 2);
  dump_float("D", &D[0][0], 2 * 2);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
