package gp

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/runtime/kernels"
)

// svmBenchProblem is the hinge-loss dual of bench/svm_libsvm.sh: n rows of
// two noisy classes in two dimensions (testData's, labels the sign of
// its targets), the Gram matrix of rbf(0.9) with MapJitter on the
// diagonal.
func svmBenchProblem(n int) (*mat.SymDense, []float64) {
	x, y := testData(n, 2, 47)
	labels := make([]float64, n)
	for i, v := range y {
		labels[i] = math.Copysign(1, v)
	}
	rbf, _ := kernels.NewRBF([]float64{0.9})
	K, _ := kernels.Gram(rbf, x)
	for i := 0; i < n; i++ {
		K.SetSym(i, i, K.At(i, i)+MapJitter)
	}
	return K, labels
}

// svmBenchC is the benchmark's loss weight: C = 2 here is libsvm's C = 1
// (our primal is twice libsvm's, ½uᵀK⁻¹u + (C/2)Σ hinge).
const svmBenchC = 2

// BenchmarkSVMDual times the SVM-loss MKL inner solve at n = 1000 and
// 2000, with cpu-s/op (all threads) beside wall time. With
// KML_SVM_DUMP=DIR it first writes each size's Gram matrix and labels to
// DIR/svm_N.bin (n, then n² then n little-endian float64s) for
// bench/svm_libsvm.sh to hand the same problem to libsvm.
func BenchmarkSVMDual(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		K, y := svmBenchProblem(n)
		if dir := os.Getenv("KML_SVM_DUMP"); dir != "" {
			if err := dumpSVM(fmt.Sprintf("%s/svm_%d.bin", dir, n), K, y); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c0 := cputime.Used()
			var sv int
			for i := 0; i < b.N; i++ {
				w, _, err := SVMDual(K, y, Loss{Kind: Hinge, C: svmBenchC})
				if err != nil {
					b.Fatal(err)
				}
				sv = 0
				for _, v := range w {
					if v != 0 {
						sv++
					}
				}
			}
			b.ReportMetric((cputime.Used()-c0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(sv), "sv")
		})
	}
}

func dumpSVM(path string, K *mat.SymDense, y []float64) error {
	n := len(y)
	buf := make([]float64, 0, 1+n*n+n)
	buf = append(buf, float64(n))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			buf = append(buf, K.At(i, j))
		}
	}
	buf = append(buf, y...)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := binary.Write(f, binary.LittleEndian, buf); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
