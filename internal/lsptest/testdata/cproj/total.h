#ifndef TOTAL_H
#define TOTAL_H

static inline int total(int a, int b) { return a + b; }

#endif
