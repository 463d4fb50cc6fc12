package blas3

// kernel_amd64.s is generated from the micro-kernel descriptions in
// runtime/internal/asmgen (gemm.go there); edit those and run
// go generate ./runtime/internal/blas3.
//
//go:generate go run ../asmgen/gen blas3
