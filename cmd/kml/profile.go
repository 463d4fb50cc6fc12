package main

import (
	"fmt"
	"io"
	"runtime/pprof"
	"strings"
	"sync"

	"github.com/kml-lang/kml/internal/sandbox"
)

// profiles are the files `kml run --cpuprofile FILE --memprofile FILE`
// writes (runtime/pprof's format, read with `go tool pprof`), so a user or
// a developer sees where a script's time and memory go without writing a
// Go test. Paths are relative to the working directory, as a user types
// them, not to the script's directory: the profile is the command's
// output, not the script's, and the sandbox does not apply. Each is written
// as every file KML writes is (internal/sandbox's File): into a temporary
// put in place once the profile is complete, so a run killed or a write
// that fails leaves the old file, if any, and no part of a new one.
type profiles struct {
	cpu, mem *sandbox.File
	once     sync.Once
	stderr   io.Writer
}

// profileFlags takes --cpuprofile FILE and --memprofile FILE (or
// --NAME=FILE) out of the arguments of kml run and returns the rest for
// runOptions.
func profileFlags(args []string) (rest []string, cpu, mem string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "cpuprofile" && name != "memprofile" {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, "", "", fmt.Errorf("--%s needs a file", name)
			}
			i++
			val = args[i]
		}
		if val == "" {
			return nil, "", "", fmt.Errorf("--%s needs a file", name)
		}
		if name == "cpuprofile" {
			cpu = val
		} else {
			mem = val
		}
	}
	return rest, cpu, mem, nil
}

// startProfiles opens the profile files' temporaries (before the script
// runs, so a path that cannot be written is reported at once) and starts
// the CPU profile. Its stop writes the memory profile and puts both in
// place; it runs once, whether the script ends, fails or is interrupted.
func startProfiles(cpu, mem string, stderr io.Writer) (*profiles, error) {
	p := &profiles{stderr: stderr}
	var err error
	if cpu != "" {
		if p.cpu, err = sandbox.CreateAtomic(cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %v", err)
		}
		if err = pprof.StartCPUProfile(p.cpu); err != nil {
			p.cpu.Abort()
			return nil, fmt.Errorf("--cpuprofile: %v", err)
		}
	}
	if mem != "" {
		if p.mem, err = sandbox.CreateAtomic(mem); err != nil {
			p.stop()
			return nil, fmt.Errorf("--memprofile: %v", err)
		}
	}
	return p, nil
}

// stop ends the CPU profile and writes the memory profile: the "allocs"
// profile, every allocation sampled since the start (one per 512 KiB on
// average, Go's default rate) with what is still in use, as `go test
// -memprofile` writes it.
func (p *profiles) stop() {
	p.once.Do(func() {
		if p.cpu != nil {
			pprof.StopCPUProfile()
			if err := p.cpu.Commit(); err != nil {
				fmt.Fprintf(p.stderr, "error: --cpuprofile: %v\n", err)
			}
		}
		if p.mem != nil {
			err := pprof.Lookup("allocs").WriteTo(p.mem, 0)
			if err == nil {
				err = p.mem.Commit()
			}
			p.mem.Abort()
			if err != nil {
				fmt.Fprintf(p.stderr, "error: --memprofile: %v\n", err)
			}
		}
	})
}
