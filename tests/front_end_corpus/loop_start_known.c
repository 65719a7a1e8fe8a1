// covers: loops without a start (for (; i < n; i++), for (i; ...)) where the value the iterator has before the loop is known in the SCoP: an assignment, the exit value of a loop before
#include <stdio.h>
#include <math.h>
#define N 40
static void compute(int n, int m, int s, double A[N][N], double B[N][N], double C[N], double D[N], int idx[N], int cnt[N], int P[N + 1], int Q[4 * N], double V[4 * N])
{
  int i, j, k = -1;   /* k is read after the SCoP even where its loop does not run */
  double t;
#pragma scop
  i = 2;
  for (; i < n; i++)
    C[i] = C[i] + 1.0;
  for (; i < m; i += 2)
    D[i] = D[i] * 2.0;
  for (j = 0; j < n; j++) {
    k = j + 1;
    for (; k < m; k++)
      B[j][k] = A[j][k] + 1.0;
  }
  i = n / 2;
  for (i; i >= 0; i--)
    V[i] = V[i] + 3.0;
  cnt[0] = i;
  cnt[1] = k;
#pragma endscop
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int t = 0; t < count; t++) fprintf(stderr, "%0.17g\n", v[t]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  static double A[N][N], B[N][N], C[N], D[N], V[4 * N];
  static int idx[N], cnt[N], P[N + 1], Q[4 * N];
  static const int sizes[4][3] = {{37, 41 % N, 3}, {5, 1, 2}, {0, 3, 1}, {N, N, 7}};
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  for (int r = 0; r < 4; r++) {
    int n = sizes[r][0], m = sizes[r][1], s = sizes[r][2];
    for (int t = 0; t < N; t++) {
      C[t] = ((t * 5) % 9) / 9.0 - 0.3; D[t] = (t % 4) * 0.25; idx[t] = (t * 7 + r) % N; cnt[t] = -1;
      for (int u = 0; u < N; u++) { A[t][u] = ((t * 13 + u * 7 + r) % 100) / 100.0; B[t][u] = (t + u) % 3; }
    }
    P[0] = 0;
    for (int t = 0; t < N; t++) P[t + 1] = P[t] + (t * 3) % 5;
    for (int t = 0; t < 4 * N; t++) { Q[t] = (t * 11) % N; V[t] = ((t * 7) % 13) / 13.0; }
    compute(n, m, s, A, B, C, D, idx, cnt, P, Q, V);
    char tag[4][8];
    for (int a = 0; a < 4; a++) snprintf(tag[a], sizeof tag[a], "%c%d", "ABCD"[a], r);
    dump(tag[0], &A[0][0], N * N); dump(tag[1], &B[0][0], N * N); dump(tag[2], C, N); dump(tag[3], D, N);
    fprintf(stderr, "begin dump: cnt%d\n", r);
    for (int t = 0; t < N; t++) fprintf(stderr, "%d\n", cnt[t]);
    fprintf(stderr, "end   dump: cnt%d\n", r);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
