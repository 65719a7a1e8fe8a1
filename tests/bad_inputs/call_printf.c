// expect: 8:5: call to 'printf' as a statement
#include <math.h>
#include <stdio.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    printf("%f\n", B[i]);
#pragma endscop
}
