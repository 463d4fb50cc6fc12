package ktest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// RCIT against KCI at n = 1000 and 10000 (KCI at 500, 1000 and 2000 for
// its slope: at 10000 its n×n matrices, 0.8 GB each, and their products
// need several GB):
//
//	go test ./runtime/ktest -run '^$' -bench 'CITest' -benchtime 1x -benchmem
//
// KML_CI_N=10000 runs both tests at that size only (KCI at n = 10000 needs
// about 8 GB and minutes of both cores):
//
//	KML_CI_N=10000 go test ./runtime/ktest -run '^$' -bench 'CITest' -benchtime 1x
func BenchmarkCITest(b *testing.B) {
	cases := []struct {
		method string
		n      int
	}{{"kci", 500}, {"kci", 1000}, {"kci", 2000}, {"rcit", 1000}, {"rcit", 10000}}
	if s := os.Getenv("KML_CI_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			b.Fatalf("KML_CI_N: %q is not a sample size", s)
		}
		cases = cases[:0]
		cases = append(cases, struct {
			method string
			n      int
		}{"kci", n}, struct {
			method string
			n      int
		}{"rcit", n})
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/n=%d", c.method, c.n), func(b *testing.B) {
			x, y, z := ciData(rand.New(rand.NewPCG(85, uint64(c.n))), c.n, 0)
			for i := 0; i < b.N; i++ {
				var err error
				if c.method == "kci" {
					_, err = KCITest(context.Background(), x, y, z, nil, nil, nil, 0, 1)
				} else {
					_, err = RCITTest(context.Background(), x, y, z, 0, 0, "", 1)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
