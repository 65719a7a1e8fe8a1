// covers: loops whose condition does not bound the iterator for every value: != with a step that may skip the bound, i < A[i] (pet: while loops)
#include <stdio.h>
#include <math.h>
#define N 40
static void compute(int n, int m, int s, double A[N][N], double B[N][N], double C[N], double D[N], int idx[N], int cnt[N], int P[N + 1], int Q[4 * N], double V[4 * N])
{
  int i, j, k;
  double t;
#pragma scop
  for (i = 0; i != n; i++)
    C[i] = C[i] * 2.0;
  for (i = 0; i < n; i++)
    for (j = 0; j != m - m % 2; j += 2)
      B[i][j] = A[i][j] + 1.0;
  for (i = 0; i < n; i++)
    for (j = N - 1; j != 3 * s; j -= 3)
      B[i][j / 2] = B[i][j / 2] - 1.0;
  for (i = 0; i < cnt[i] + n / 2; i++)
    D[i] = D[i] + 1.0;
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
