package cpufeat

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// Model is the CPU's model name where the system reports it (Linux's
// /proc/cpuinfo), else the architecture.
func Model() string {
	f, err := os.Open("/proc/cpuinfo")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH + " (model unknown)"
}
