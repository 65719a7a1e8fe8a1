// args: --sizes "[n] -> { kernel[i] -> tile[n] }"
// expect: option: --sizes: tile sizes of kernel 0 depend on parameters
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
