// expect: 8:7: 'P' has an unsupported type (pointer to pointer
#include <math.h>
void f(int n, double **P)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      P[i][j] = 0.0;
#pragma endscop
}
