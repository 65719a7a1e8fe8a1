// expect: 6:27: non-integer constant '0.5' in loop condition
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n * 0.5; i++)
    B[i] = 1.0;
#pragma endscop
}
