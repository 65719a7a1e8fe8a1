// covers: PENCIL's imin/imax/umin/umax in loop bounds (affine), in a subscript and in statements (printed as conditional expressions)
// link: lib/pencil.c
#include <stdio.h>
#define N 40
#define M 30
int imin(int a, int b);
int imax(int a, int b);
unsigned umin(unsigned a, unsigned b);
unsigned umax(unsigned a, unsigned b);
void kernel(int n, int m, double A[N][M], double B[N][M], int K[N])
{
#pragma scop
  for (int i = 0; i < imin(n, N); i++)
    for (int j = imax(0, i - 5); j < imin(m, imax(i, 3)); j++)
      A[i][j] = A[i][j] + B[i][imin(j + 1, m - 1)] * 0.5;
  for (int i = 0; i < umin(n, N); i++)
    K[i] = imax(K[i], i) + umax(i, 7) - imin(K[i], imin(i, 9));
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
  static double A[N][M], B[N][M], k[N];
  static int K[N];
  for (int i = 0; i < N; i++) {
    K[i] = (i * 7) % 13 - 3;
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
    }
  }
  kernel(N - 3, M - 4, A, B, K);
  kernel(0, M, A, B, K);
  kernel(N, 1, A, B, K);
  kernel(N + 5, M, A, B, K);
  for (int i = 0; i < N; i++) k[i] = K[i];
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * M); dump("K", k, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
