// expect: 7:5: loop iterator 'i' is written inside its loop
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    i = 3;
#pragma endscop
}
