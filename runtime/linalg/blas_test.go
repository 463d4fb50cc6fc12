package linalg

import (
	"testing"

	"github.com/kml-lang/kml/runtime/internal/blas3"
	"gonum.org/v1/gonum/blas/blas64"
)

func TestBLASInstalled(t *testing.T) {
	if _, ok := blas64.Implementation().(blas3.Implementation); !ok {
		t.Fatalf("gonum's BLAS is %T, want blas3.Implementation", blas64.Implementation())
	}
}
