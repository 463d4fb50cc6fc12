package bke

// rows_amd64.s and tile_amd64.s are generated from the kernel descriptions
// in runtime/internal/asmgen (rows.go and tile.go there); edit those and
// run go generate ./runtime/bke.
//
//go:generate go run ../internal/asmgen/gen bke
