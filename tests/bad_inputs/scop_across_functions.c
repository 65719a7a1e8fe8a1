// expect: 5:9: #pragma scop without a matching #pragma endscop
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  B[0] = 0.0;
}
void g(int n, int m, double A[100][100], double B[100], double x)
{
  B[1] = 0.0;
#pragma endscop
}
