/* Fuzz 19:34: isl shifts a floor division's argument by large constants (n + 262152 * b0 - ...), which passed to ppcg_floord(int, int) wrapped around: a wrong thread wrote out of bounds (segfault in the emulation). The helpers take long now. */
#include <stdio.h>
#include <math.h>
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define MAX(a, b) (((a) > (b)) ? (a) : (b))

static inline float mixf(float a, float b) { return 0.5f * a + 0.25f * b; }

static void compute(int n, float alpha, float beta, float A[9][20], float *s_io)
{
  float s = *s_io;
#pragma scop
  for (int i = n - 1 - 1; i >= n - 4; i--) {
    float v = (((A[i + 1][i + 7] * A[i + 1][i + 7]) - (0.2f * A[i + 1][i + 7])) - (0.2 * A[i + 1][2 * i + 7]));
    A[i + 1][i + 7] *= (0.5 + (0.25 * v));
    if ((i + i) % 3 == 0) {
      if ((i + i <= n) && (i < 5)) {
        A[i + 1][i + 7] *= (0.5 + (0.25 * A[i + 1 + 1][i + 7]));
        A[i + 1][i + 7] -= ((0.25 * alpha) + (0.5 * v));
      }
    }
  }
  for (int i = 0; i < 6; i++) {
    A[i + 1][i + 7] += ((exp((-0.5 * fabs(s))) + (0.125 * A[i + 1][i + 7])) + (0.5f * A[i + 1 + 1][i + 7]));
    if (!((i + i) % 2 == 0)) {
      A[i + i + 1][i + 7] = (((0.2f * A[i + i + 1][i + 1 + 7]) + (0.2f * beta)) + (A[i + i + 1][i - 1 + 7] * (i)));
      s -= ((0.3f * alpha) + exp((-0.5 * fabs((i)))));
    }
  }
  for (int i = 0; i <= n - 1; i++) {
    for (int j = i; j < 7; j++) {
      for (int k = i + 1; k < 8; k++) {
        for (int l = i; l < n; l++) {
          if (i >= j) {
            if (i > n - 1) {
              float tmp = (((s * A[i + 1][l + 7]) - A[l + 1][k + 7]) + (0.3f * A[i - 2 + 1][j + 7]));
              A[j + 1][k + 7] = (((tmp * tmp) + (A[l + 1][j % 3 + 7] > 0.2f ? (((0.375 * A[j + 1][l + 7]) + (A[j - k + 1][i + 7] / 4.0)) + (A[i + 1][l - 1 + 7] * tmp)) : (j + 1))) + (0.25f * tmp));
              A[k + 1][l + 7] += (mixf(A[k + 1][k % 3 + 7], A[k + 1][l - 1 + 7]) + (A[k + 1][l - 1 + 7] / 4.0));
            }
            float alpha = ((double) 0.75f);
            A[i + 1][j + 7] = ((pow(A[i - 1 + 1][j + 7], 2.0) + (0.25f <= 0.125f ? sqrt(fabs(A[i + 1 + 1][j + 7])) : A[i - 1 + 1][j + 7])) + (0.25 * alpha));
            if ((i + k) % 2 == 0) {
              A[i + 1][l + 7] -= ((s * A[j + 1][i + 7]) + beta);
              s = A[j + 1][l + 7] = A[j + 1][l + k + 7];
            } else {
              s += (((0.5f * 0.5) + (A[1 + 1][i - k + 7] * (k))) - ((i) / 3.0));
            }
          }
        }
      }
    }
    A[i + 1][i + 7] = (0.125f * (i - 1));
  }
#pragma endscop
  *s_io = s;
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
  static float A[9][20];
  float s = 0.5f;
  for (int x0 = 0; x0 < 9; x0++)
  for (int x1 = 0; x1 < 20; x1++)
    A[x0][x1] = (float) ((7 * x0 + 13 * x1 + 1) % 19) / 19 - (float) 0.25;
  compute(5, 1.5f, 0.75f, A, &s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump_float("A", &A[0][0], 9 * 20);
  dump_float("s", &s, 1);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}

