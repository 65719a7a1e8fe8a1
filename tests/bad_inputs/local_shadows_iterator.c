// expect: 8:7: non-affine array subscript: 'i' ('i' is not a loop iterator or parameter)
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    int i = n * n;
    B[i] = 1.0;
  }
#pragma endscop
}
