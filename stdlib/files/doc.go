// Package files holds print and the builtins that read and write files
// inside the sandbox: read_csv, write_csv and save (CSV, JSON, CmdStan).
// An embedder that leaves it out gives scripts no file access.
package files
