// covers: arrays of structs in a parallel two-dimensional nest: one member written from
// neighbouring elements' other member (no dependence between the members)
#include <stdio.h>
#define N 40
struct px { float r; float g; int hits; };
static void compute(int n, struct px img[N][N])
{
#pragma scop
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++) {
      img[i][j].r = (img[i - 1][j].g + img[i + 1][j].g + img[i][j - 1].g + img[i][j + 1].g) * 0.25f;
      img[i][j].hits = img[i][j].hits + 1;
    }
#pragma endscop
}

int main(void)
{
  static struct px img[N][N];
  for (int t = 0; t < N; t++)
    for (int u = 0; u < N; u++) { img[t][u].r = 0; img[t][u].g = (t * 5 + u * 3) % 17; img[t][u].hits = t - u; }
  compute(N, img);
  compute(2, img);
  compute(17, img);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: img\n");
  for (int t = 0; t < N; t++)
    for (int u = 0; u < N; u++) fprintf(stderr, "%0.9g %0.9g %d\n", img[t][u].r, img[t][u].g, img[t][u].hits);
  fprintf(stderr, "end   dump: img\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
