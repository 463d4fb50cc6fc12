#!/bin/bash
# Package map: non-test files and lines per package, and the module packages it imports.
# usage: scripts/pkgmap.sh [DIR]   (default: the repository)
cd "${1:-$(dirname "$0")/..}"
for d in $(go list -f '{{.Dir}}' ./... ); do
  rel=${d#$PWD/}; [ "$rel" = "$PWD" ] && rel="(root)"; [ "$d" = "$PWD" ] && rel="(root)"
  files=$(ls $d/*.go 2>/dev/null | grep -v _test.go)
  n=$(echo "$files" | wc -w)
  lines=$(cat $files | wc -l)
  imps=$(go list -f '{{join .Imports " "}}' ./$([ "$rel" = "(root)" ] && echo . || echo $rel) | tr ' ' '\n' | grep kml-lang | sed 's#github.com/kml-lang/kml/##' | tr '\n' ' ')
  printf "| %s | %d | %d | %s |\n" "$rel" "$n" "$lines" "$imps"
done
