//go:build amd64 && !purego

package fastexp

// paths returns the kernels this machine can run, each with a function that
// selects it; the Go fallback is always among them.
func paths() []path {
	avx2, avx512 := useAVX2, useAVX512
	set := func(a2, a512 bool) func() func() {
		return func() func() {
			useAVX2, useAVX512 = a2, a512
			return func() { useAVX2, useAVX512 = avx2, avx512 }
		}
	}
	ps := []path{{"go", set(false, false)}}
	if avx2 {
		ps = append(ps, path{"avx2", set(true, false)})
	}
	if avx512 {
		ps = append(ps, path{"avx512", set(true, true)})
	}
	return ps
}
