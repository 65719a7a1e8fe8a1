// expect: 3:10: no_such_header.h: No such file or directory
#include <math.h>
#include "no_such_header.h"
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
