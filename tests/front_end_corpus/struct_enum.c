// covers: enum constants used as values and in a loop bound (RED, COUNT), an explicit
// enumerator value, and an enum-typed scalar parameter treated as int
#include <stdio.h>
#define N 30
enum color { RED, GREEN = 5, BLUE, COUNT = 3 };
typedef enum { OFF, ON } mode_t_;
static void compute(int n, enum color c, mode_t_ m, int A[N][COUNT], int B[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < COUNT; k++)
      A[i][k] = A[i][k] + (k == RED ? GREEN : BLUE) * c;
    B[i] = B[i] * 2 + m + ON;
  }
#pragma endscop
}

int main(void)
{
  static int A[N][COUNT], B[N];
  for (int t = 0; t < N; t++) { B[t] = t; for (int k = 0; k < COUNT; k++) A[t][k] = t - k; }
  compute(25, BLUE, ON, A, B);
  compute(0, RED, OFF, A, B);
  compute(10, GREEN, OFF, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: A\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%d %d %d %d\n", A[t][0], A[t][1], A[t][2], B[t]);
  fprintf(stderr, "end   dump: A\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
