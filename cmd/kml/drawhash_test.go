// The hash pins the bits of float64 arithmetic as the Go compiler emits it
// for amd64 below GOAMD64=v3: from v3 on (and on arm64) it may fuse a
// multiply and an add into one FMA, which rounds once and changes the
// draws' last bits, so the test runs only where the recorded bits hold.

//go:build amd64 && !amd64.v3

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hier8Script is bench/stan/hier8.kml with its data inline: eight schools,
// 4 chains of 1000 warm-up and 1000 kept draws, seed 15, saved as CmdStan.
const hier8Script = `let y = [28, 8, -3, 7, -1, 1, 18, 12]
let sigma = [15, 10, 16, 11, 9, 11, 10, 18]
model m {
  mu ~ normal(0, 5)
  tau ~ half_cauchy(5)
  eta[8] ~ normal(0, 1)
  y ~ normal(mu + tau * eta, sigma)
}
let post = sample(m, chains: 4, warmup: 1000, draws: 1000, seed: 15)
save(post, to: "h8.csv", format: "cmdstan")
`

// hier8Hash is the SHA-256 of the four CmdStan files eight schools writes
// (elapsed-time lines left out), the same on every vector path, as the
// code of 2026-11-29 before the tape and save work of issue 42 computed it.
// Sampling, adaptation and formatting must keep every byte: a change of
// any draw's last bit, of the step size or of a formatted digit changes it.
const hier8Hash = "f53a8f5c9937ca762441cfccc777f84712cba379cd1f3c939a3ede0f23f4af56"

// TestHier8DrawsUnchanged runs eight schools on every vector path this
// CPU has (KML_CPU) and compares the hash of its CmdStan files with the
// recorded one. The paths this CPU lacks run the best path it has.
func TestHier8DrawsUnchanged(t *testing.T) {
	for _, level := range []string{"generic", "avx2", "avx512"} {
		t.Run(level, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "h8.kml"), []byte(hier8Script), 0o644); err != nil {
				t.Fatal(err)
			}
			path := kmlPath(t, dir, level)
			cmd := exec.Command(os.Args[0], "run", "h8.kml")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "KML_TEST_MAIN=1", "KML_CPU="+level)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("kml run: %v\n%s", err, errb.String())
			}
			h := sha256.New()
			for c := 1; c <= 4; c++ {
				f, err := os.Open(filepath.Join(dir, fmt.Sprintf("h8_%d.csv", c)))
				if err != nil {
					t.Fatal(err)
				}
				sc := bufio.NewScanner(f)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					line := sc.Text()
					if strings.HasPrefix(line, "#") && strings.Contains(line, " seconds (") {
						continue // elapsed time
					}
					h.Write([]byte(line))
					h.Write([]byte{'\n'})
				}
				f.Close()
				if err := sc.Err(); err != nil {
					t.Fatal(err)
				}
			}
			got := hex.EncodeToString(h.Sum(nil))
			if got != hier8Hash {
				t.Errorf("isa %s: eight schools' CmdStan files hash to %s, want %s: the draws or their formatting changed", path, got, hier8Hash)
			}
		})
	}
}

// kmlPath is the vector path `kml version` names under KML_CPU=level
// ("none", "avx2", "avx512"): the requested level capped by the CPU.
func kmlPath(t *testing.T, dir, level string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "version")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KML_TEST_MAIN=1", "KML_CPU="+level)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "isa: "); ok {
			path, _, _ := strings.Cut(rest, " ")
			return path
		}
	}
	t.Fatalf("kml version names no isa:\n%s", out)
	return ""
}
