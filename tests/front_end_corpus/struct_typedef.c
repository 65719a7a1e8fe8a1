// covers: a typedef'd anonymous struct (point) whose members have a typedef'd type (real),
// and a typedef of a tagged struct (seg_t)
#include <stdio.h>
#define N 36
typedef float real;
typedef struct { real x; real y; } point;
typedef struct seg { point a; point b; } seg_t;
static void compute(int n, point p[N], seg_t s[N], real len[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    len[i] = (s[i].b.x - s[i].a.x) * (s[i].b.x - s[i].a.x) + (s[i].b.y - s[i].a.y) * (s[i].b.y - s[i].a.y);
    p[i].x = (s[i].a.x + s[i].b.x) * 0.5f;
    p[i].y = (s[i].a.y + s[i].b.y) * 0.5f;
  }
#pragma endscop
}

int main(void)
{
  static point p[N];
  static seg_t s[N];
  static real len[N];
  for (int t = 0; t < N; t++) {
    s[t].a.x = t; s[t].a.y = t % 4; s[t].b.x = 2 * t - 3; s[t].b.y = (t * 7) % 5; p[t].x = p[t].y = -1; len[t] = 0;
  }
  compute(30, p, s, len);
  compute(0, p, s, len);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: p\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.9g %0.9g %0.9g\n", p[t].x, p[t].y, len[t]);
  fprintf(stderr, "end   dump: p\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
