// expect: 5:9: empty SCoP
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  ;
  ;
#pragma endscop
}
