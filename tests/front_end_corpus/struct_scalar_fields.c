// covers: an array of structs with scalar members, written and read member by member
// in a parallel loop (pts[i].x and pts[i].y are independent field arrays)
#include <stdio.h>
#define N 48
struct pt { double x; double y; float w; };
static void compute(int n, struct pt pts[N], double out[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    pts[i].x = pts[i].y * 2.0 + pts[i].w;
    out[i] = pts[i].x - pts[i].y;
    pts[i].y = out[i] * 0.5;
  }
#pragma endscop
}

int main(void)
{
  static struct pt pts[N];
  static double out[N];
  for (int t = 0; t < N; t++) { pts[t].x = t; pts[t].y = (t % 7) * 0.25; pts[t].w = t % 3; out[t] = -1.0; }
  compute(30, pts, out);
  compute(0, pts, out);
  compute(-2, pts, out);
  compute(45, pts, out);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: pts\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g %0.17g %0.9g\n", pts[t].x, pts[t].y, pts[t].w);
  fprintf(stderr, "end   dump: pts\n");
  fprintf(stderr, "begin dump: out\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g\n", out[t]);
  fprintf(stderr, "end   dump: out\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
