/* Replays every file under the given directories (or single files) through
 * LLVMFuzzerTestOneInput, so crash inputs found by libFuzzer stay regression
 * tests under any compiler.  Exits non-zero only if an input cannot be read;
 * a crash or sanitizer report fails the test by itself. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
    fprintf(stderr, "%s: cannot read\n", path);
    free(buf);
    fclose(f);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, (size_t)n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int failures = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      continue;
    } /* no regressions recorded yet */
    if (!S_ISDIR(st.st_mode)) {
      failures += replay_file(argv[i]);
      count++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      failures += replay_file(path);
      count++;
    }
    if (d) closedir(d);
  }
  printf("replayed %d inputs, %d unreadable\n", count, failures);
  return failures ? 1 : 0;
}
