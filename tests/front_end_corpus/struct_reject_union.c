// covers: a union is rejected with a located message
// expect: 12:5: unsupported type (union type)
#include <stdio.h>
#define N 16
union bits { float f; int i; };
static void compute(int n, union bits u[N], int A[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = i;
  for (int i = 0; i < n; i++)
    u[i].i = A[i];
#pragma endscop
}

int main(void)
{
  static union bits u[N];
  static int A[N];
  compute(N, u, A);
  printf("%d\n", u[3].i + A[2]);
  return 0;
}
