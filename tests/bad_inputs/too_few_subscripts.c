// expect: 7:5: 'A' has 2 dimensions but is accessed with 1 subscripts
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}
