// expect: 6:3: loop over 'i' has no condition
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; ; i++)
    B[i] = 1.0;
#pragma endscop
}
