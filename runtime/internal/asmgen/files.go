package asmgen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// A file this package generates: its path from the module root and the
// package (the directory's last element) whose go:generate writes it.
type file struct {
	pkg, path string
	gen       func() []byte
}

var files = []file{
	{"blas3", "runtime/internal/blas3/kernel_amd64.s", blas3File},
	{"bke", "runtime/bke/rows_amd64.s", rowsFile},
	{"bke", "runtime/bke/tile_amd64.s", tileFile},
}

// Packages lists the packages with generated files.
func Packages() []string {
	seen := map[string]bool{}
	var ps []string
	for _, f := range files {
		if !seen[f.pkg] {
			seen[f.pkg] = true
			ps = append(ps, f.pkg)
		}
	}
	sort.Strings(ps)
	return ps
}

// Write generates the files of package pkg ("blas3", "bke") into dir,
// under their base names, and returns their paths.
func Write(dir, pkg string) ([]string, error) {
	var out []string
	for _, f := range files {
		if f.pkg != pkg {
			continue
		}
		p := filepath.Join(dir, filepath.Base(f.path))
		if err := os.WriteFile(p, f.gen(), 0o644); err != nil {
			return out, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("asmgen: no files for package %q (have %v)", pkg, Packages())
	}
	return out, nil
}
