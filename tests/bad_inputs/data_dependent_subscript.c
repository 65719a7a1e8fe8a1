// expect: 7:7: array subscript depends on data: 'P[i]' reads memory
#include <math.h>
void f(int n, int P[100], double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[P[i]] = 1.0;
#pragma endscop
}
