#include "total.h"

int main(void) {
  return total(1, 2);
}
