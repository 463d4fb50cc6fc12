package kst

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

func TestFitErrors(t *testing.T) {
	rbf, _ := kernels.NewRBF([]float64{1})
	ard, _ := kernels.NewRBF([]float64{1, 2})
	ok := Hyper{Sigma0: 1, Alpha: 1, Beta: 1}
	x3 := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	x1 := mat.NewDense(1, 3, []float64{1, 2, 3})
	nan := mat.NewDense(2, 1, []float64{1, math.NaN()})
	cases := []struct {
		k    kernels.Kernel
		x    *mat.Dense
		h    Hyper
		want string
	}{
		{rbf, nil, ok, "at least one training point"},
		{rbf, &mat.Dense{}, ok, "at least one training point"},
		{rbf, nan, ok, "NaN in row 2, column 1"},
		{rbf, x3, Hyper{Sigma0: 0, Alpha: 1, Beta: 1}, "sigma0 must be positive"},
		{rbf, x3, Hyper{Sigma0: 1, Alpha: -1, Beta: 1}, "alpha must be positive"},
		{rbf, x3, Hyper{Sigma0: 1, Alpha: 1, Beta: math.Inf(1)}, "beta must be positive and finite"},
		{rbf, x1, Hyper{Sigma0: 1, Alpha: 1, Beta: 1}, "alpha + N must exceed d − 1 = 2"},
		{ard, x3, ok, "2 lengthscales but the data has 3 columns"},
	}
	for _, c := range cases {
		_, err := Fit(c.k, c.x, c.h)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fit(%s, %+v): error %v, want one containing %q", c.k, c.h, err, c.want)
		}
	}
	if _, err := Fit(rbf, x1, Hyper{Sigma0: 1, Alpha: 1.01, Beta: 1}); err != nil {
		t.Errorf("alpha + N = 2.01 > d − 1 = 2 is proper, got %v", err)
	}
	if _, err := NewKDE(rbf, nil); err == nil {
		t.Error("kde of no data: no error")
	}
}

func TestLogPDFErrors(t *testing.T) {
	rbf, _ := kernels.NewRBF([]float64{1})
	m, err := Fit(rbf, mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1}), Hyper{Sigma0: 1, Alpha: 1, Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x    *mat.Dense
		want string
	}{
		{mat.NewDense(1, 3, nil), "3 columns but the density was fitted to 2"},
		{mat.NewDense(2, 2, []float64{0, 0, math.Inf(1), 0}), "+Inf in row 2, column 1"},
	} {
		r, _ := c.x.Dims()
		err := m.LogPDF(make([]float64, r), c.x)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}
