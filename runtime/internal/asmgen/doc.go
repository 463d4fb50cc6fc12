// Package asmgen writes the amd64 assembly of runtime/internal/blas3 and
// runtime/bke from Go descriptions, so the repeated micro-kernel bodies
// (the MR×NR tiles of blas3 unrolled over p, the per-landmark sums and
// pointer walks shared by bke's row and tile kernels) are written once, as
// loops over their shapes, instead of by hand.
//
// It is the shape of the Go standard library's math/big/internal/asmgen: a
// dependency-free Go program in the repository, not an external assembler
// DSL such as avo, so the main module needs nothing new. The emitter
// (asm.go) knows only text: instructions, labels, comments, and the frame
// offsets of a Go signature (so an argument is named, never counted). The
// kernels are described in gemm.go (blas3's kernel_amd64.s), rows.go
// (bke's rows_amd64.s) and tile.go (bke's tile_amd64.s); files.go lists
// the files and the package each belongs to.
//
// # Regenerating
//
// After changing a description, regenerate the files of a package with
// go generate (each package has a //go:generate line beside its stubs):
//
//	go generate ./runtime/internal/blas3 ./runtime/bke
//
// which runs `go run ../asmgen/gen blas3` (or `../internal/asmgen/gen
// bke`) in the package's directory. TestGeneratedUpToDate regenerates every
// file into a temporary directory and fails when it differs from the
// committed one, so a hand edit of a .s file, or a description changed
// without regenerating, fails go test ./....
//
// The generated files start with "// Code generated … DO NOT EDIT."; edit
// the descriptions here instead.
package asmgen
