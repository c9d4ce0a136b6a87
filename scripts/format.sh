#!/usr/bin/env bash
# Applies the house style (.clang-format) to every C++ file git tracks, or with --check only
# reports the files that differ from it and exits 1 (CI runs the check; see docs/architecture.md).
# Usage: scripts/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
for a in "$@"; do
  case "$a" in
    --check) check=1 ;;
    *) echo "format.sh: unknown option '$a' (use --check or nothing)" >&2; exit 2 ;;
  esac
done
# Debian 12's clang-format is 14; a different major version formats a few constructs differently,
# so the check names the one it expects instead of failing on someone else's machine for no reason.
clang_format=${CLANG_FORMAT:-}
if [ -z "$clang_format" ]; then
  for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null 2>&1; then clang_format=$c; break; fi
  done
fi
if [ -z "$clang_format" ]; then
  echo "format.sh: clang-format not found (scripts/bootstrap.sh installs Debian's clang-format)" >&2
  exit 2
fi
version=$("$clang_format" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$version" != 14 ]; then
  echo "format.sh: warning: $clang_format is version $version; the tree is formatted with 14" >&2
fi
mapfile -t files < <(git ls-files -- '*.cpp' '*.h')
if [ "$check" = 0 ]; then
  "$clang_format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! "$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ "${#bad[@]}" -gt 0 ]; then
  echo "format.sh: ${#bad[@]} file(s) differ from .clang-format; run scripts/format.sh to fix:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format.sh: ${#files[@]} files follow .clang-format"
