// expect: 8:5: 'q' has an unsupported type (struct, union or enum type)
#include <math.h>
struct s { double v; };
void f(int n, struct s q)
{
#pragma scop
  for (int i = 0; i < n; i++)
    q = q;
#pragma endscop
}
