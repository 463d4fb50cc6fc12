package eval

import "testing"

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"512MB": 512 << 20, "8GB": 8 << 30, "1.5GiB": 3 << 29, "2g": 2 << 30, "1000": 1000, "64 kB": 64 << 10} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1GB", "lots", "0", "1e30GB"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) succeeded", s)
		}
	}
}

func TestDefaultMemoryBudget(t *testing.T) {
	if b := DefaultMemoryBudget(); b < 1<<28 {
		t.Errorf("default budget %d bytes", b)
	}
}
