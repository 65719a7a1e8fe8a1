// covers: a summary that writes a scalar through a pointer and reads a row, with a conditional (affine) access; the call is the SCoP's serial head
#include <stdio.h>
#include <math.h>
#define N 40
#define M 30
static void __pencil_use(double v) { (void) v; }
static void __pencil_def(double v) { (void) v; }
static void norm_summary(int m, const double r[M], double *out, int k)
{
  for (int j = 0; j < m; j++)
    if (j >= k)
      __pencil_use(r[j]);
  __pencil_def(*out);
}
void norm(int m, const double r[M], double *out, int k) __attribute__((pencil_access(norm_summary)));
void kernel(int n, int m, double A[N][M], double B[N][M], double x[N], double y[N], int K[N])
{
  double s = 0.0;
#pragma scop
  norm(m, A[2], &s, 3);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = A[i][j] * s;
#pragma endscop
  x[0] = s;
}

void norm(int m, const double r[M], double *out, int k)
{
  double t = 0.0;
  for (int j = k; j < m; j++)
    t += r[j] * r[j];
  *out = sqrt(t);
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.17g\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}
int main(void)
{
  static double A[N][M], B[N][M], x[N], y[N], k[N];
  static int K[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0; y[i] = (i % 7) / 7.0 + 0.25; K[i] = i * 3 - 20;
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
    }
  }
  kernel(N - 3, M - 4, A, B, x, y, K);
  kernel(0, M - 4, A, B, x, y, K);
  kernel(5, 0, A, B, x, y, K);
  for (int i = 0; i < N; i++) k[i] = K[i];
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * M); dump("B", &B[0][0], N * M); dump("x", x, N); dump("y", y, N); dump("K", k, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
