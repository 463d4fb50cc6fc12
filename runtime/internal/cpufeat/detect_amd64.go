//go:build amd64 && !purego

package cpufeat

import "golang.org/x/sys/cpu"

func detect() Level {
	switch {
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX512F:
		return AVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return AVX2
	}
	return None
}
