/* A 2-D sweep over ints that reads each row's left and right neighbours but not the
   element itself (the lanes load the left one and pass it along), and one that reads
   a column too; sizes at run time, rows longer than a warp's segments. */
#include <stdio.h>
#include <stdlib.h>

static void kernel(int steps, int n, int m, int A[n][m], int B[n][m])
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        B[i][j] = (A[i][j - 1] + 3 * A[i][j + 1]) % 1021 + A[i - 1][j];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        A[i][j] = (B[i][j + 1] - B[i][j - 1] + 7 * B[i + 1][j]) % 997;
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int steps = argc > 1 ? atoi(argv[1]) : 3, n = argc > 2 ? atoi(argv[2]) : 75, m = argc > 3 ? atoi(argv[3]) : 141;
  int (*A)[m] = malloc(sizeof(int[n][m])), (*B)[m] = malloc(sizeof(int[n][m]));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      A[i][j] = (i * 31 + j * 17) % 101;
      B[i][j] = -1;
    }
  kernel(steps, n, m, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  const char *names[] = {"A", "B"};
  int (*arrays[])[m] = {A, B};
  for (int a = 0; a < 2; a++) {
    fprintf(stderr, "begin dump: %s\n", names[a]);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        fprintf(stderr, "%d\n", arrays[a][i][j]);
    fprintf(stderr, "end   dump: %s\n", names[a]);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
