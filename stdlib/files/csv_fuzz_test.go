package files

import (
	"math"
	"testing"
)

// FuzzReadCSV: any bytes either parse into a finite matrix with one column
// per header field, or give an error naming the file; never a panic.
// Run with: go test -fuzz=FuzzReadCSV ./stdlib/files
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"x,y\n1,2\n3,4\n",
		"\ufeffa\n1e400\n",
		"a,a\n1,2\n",
		"a,b\n1,\nNA,2\n3,4\n",
		"a,\"b\nc\"\n1,2\n",
		"\n\n",
		"x\n-0\n+1.5e-3\n0x1p-2\nInf\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, drop bool) {
		m, err := parseCSV("f.csv", data, nil, drop)
		if err != nil {
			if len(err.Error()) < len("f.csv") || err.Error()[:5] != "f.csv" {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		r, c := m.Dims()
		if r == 0 || c == 0 {
			t.Fatalf("an empty %d×%d matrix without an error", r, c)
		}
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if v := m.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite value %v at %d,%d", v, i, j)
				}
			}
		}
	})
}
