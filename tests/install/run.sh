#!/usr/bin/env bash
# Installs the build into a scratch prefix and compiles a tiny program
# against it with nothing but `pkg-config --cflags --libs quiver`.
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig"
cat > "$prefix/hello.c" <<'C'
#include <quiver/quiver.h>
#include <stdio.h>
int main(void) {
  qv_datatype t;
  qv_error err;
  if (qv_datatype_parse("list<int64>", &t, &err) != QV_OK) { puts(err.message); return 1; }
  char buf[64];
  qv_datatype_format(&t, buf, sizeof buf);
  qv_datatype_reset(&t);
  printf("quiver %s %s\n", QV_VERSION_STRING, buf);
  return 0;
}
C
cc -std=c11 -Wall -Wextra -Wpedantic -Werror "$prefix/hello.c" -o "$prefix/hello" $(pkg-config --cflags --libs quiver)
out=$("$prefix/hello")
[ "$out" = "quiver 0.1.0 list<int64>" ] || { echo "unexpected output: $out"; exit 1; }
test -x "$prefix/bin/quiver"
"$prefix/bin/quiver" --version
echo "install test passed"
