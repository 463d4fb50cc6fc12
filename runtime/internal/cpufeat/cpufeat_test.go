package cpufeat

import (
	"os"
	"strings"
	"testing"
)

func TestUseRestores(t *testing.T) {
	if Vector != Max {
		t.Fatalf("Vector %v, Max %v", Vector, Max)
	}
	ls := Levels()
	if ls[0] != None || ls[len(ls)-1] != Max {
		t.Fatalf("Levels() = %v", ls)
	}
	for _, l := range ls {
		restore := Use(l)
		if Vector != l {
			t.Fatalf("Use(%v): Vector %v", l, Vector)
		}
		restore()
		if Vector != Max {
			t.Fatalf("restore after Use(%v): Vector %v", l, Vector)
		}
	}
	t.Logf("detected %v", Detected)
}

// TestSelectCaps checks KML_CPU against every CPU this code can meet:
// the level is the value's, never above what the CPU has, and an unknown
// value is an error that keeps the CPU's level.
func TestSelectCaps(t *testing.T) {
	for _, cpu := range []Level{None, AVX2, AVX512} {
		for _, c := range []struct {
			env  string
			want Level
		}{
			{"", cpu},
			{"generic", None},
			{"none", None},
			{"avx2", min(AVX2, cpu)},
			{"avx512", cpu},
		} {
			got, err := Select(cpu, c.env)
			if err != nil || got != c.want {
				t.Errorf("Select(%v, %q) = %v, %v; want %v", cpu, c.env, got, err, c.want)
			}
		}
		for _, bad := range []string{"AVX2", "sse", "avx-512", " avx2"} {
			got, err := Select(cpu, bad)
			if err == nil || got != cpu {
				t.Errorf("Select(%v, %q) = %v, %v; want %v and an error", cpu, bad, got, err, cpu)
			}
		}
	}
}

// TestMaxFollowsEnv checks the level chosen at start against KML_CPU as
// the test binary saw it.
func TestMaxFollowsEnv(t *testing.T) {
	want, _ := Select(Detected, os.Getenv(Env))
	if Max != want || Vector != Max {
		t.Fatalf("Max %v, Vector %v; want %v", Max, Vector, want)
	}
	if d := Describe(); !strings.HasPrefix(d, "isa: "+Vector.String()+" ") {
		t.Fatalf("Describe() = %q", d)
	}
}
