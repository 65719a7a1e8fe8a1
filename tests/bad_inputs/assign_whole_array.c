// expect: 7:5: assignment to array 'B' as a whole
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B = A[0];
#pragma endscop
}
