// expect: 3:9: #pragma scop outside a function
#include <math.h>
#pragma scop
void f(int n, int m, double A[100][100], double B[100], double x)
{
  B[0] = 0.0;
}
#pragma endscop
