// covers: a declared function with a PENCIL summary (pencil_access): the call is kept, its accesses are the summary's
#include <stdio.h>
#include <math.h>
#define N 40
#define M 30
/* what pencil.h gives a compiler that does not read summaries: no-ops */
static void __pencil_use(double v) { (void) v; }
static void __pencil_def(double v) { (void) v; }
static void axpy_summary(int m, double y[M], const double x[M], double a)
{
  for (int j = 0; j < m; j++) {
    __pencil_use(x[j]);
    __pencil_use(y[j]);
    __pencil_def(y[j]);
  }
}
void axpy(int m, double y[M], const double x[M], double a) __attribute__((pencil_access(axpy_summary)));
void kernel(int n, int m, double A[N][M], double B[N][M], double x[N], double y[N], int K[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = A[i][j] * 0.5 + x[i];
  for (int i = 0; i < n; i++)
    axpy(m, A[i], B[i], y[i]);
  for (int i = 0; i < n; i++)
    x[i] = A[i][0] + A[i][m - 1];
#pragma endscop
}

void axpy(int m, double y[M], const double x[M], double a)
{
  for (int j = 0; j < m; j++)
    y[j] += a * x[j];
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
  kernel(5, 1, A, B, x, y, K);   /* m = 0 would read A[i][-1] */
  for (int i = 0; i < N; i++) k[i] = K[i];
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("A", &A[0][0], N * M); dump("B", &B[0][0], N * M); dump("x", x, N); dump("y", y, N); dump("K", k, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
