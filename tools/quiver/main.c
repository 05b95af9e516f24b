/* quiver: the command-line client of libquiver (public API only). */
#include <stdio.h>
#include <string.h>

#include "quiver/quiver.h"

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("quiver %s\n", QV_VERSION_STRING);
    return 0;
  }
  fprintf(stderr, "usage: quiver <command> [options]   (see quiver --help)\n");
  return 2;
}
