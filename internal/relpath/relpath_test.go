package relpath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestShowFrom(t *testing.T) {
	cases := []struct{ wd, path, want string }{
		{"/home/u/proj", "/home/u/proj/a.kml", "a.kml"},
		{"/home/u/proj", "/home/u/proj/out/x.csv", "out/x.csv"},
		{"/home/u/proj", "/home/u/proj", "."},
		{"/home/u/proj", "/home/u/data/x.csv", "../data/x.csv"},
		{"/home/u/proj", "/home/v/x.csv", "../../v/x.csv"},
		{"/home/u/proj", "/etc/passwd", "/etc/passwd"},
		{"/home/u/proj", "out/./x.csv", "out/x.csv"},
	}
	for _, c := range cases {
		if got := showFrom(filepath.FromSlash(c.wd), filepath.FromSlash(c.path)); got != filepath.FromSlash(c.want) {
			t.Errorf("showFrom(%q, %q) = %q, want %q", c.wd, c.path, got, c.want)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Skip(err)
	}
	if got := Show(filepath.Join(wd, "sub", "f.kml")); got != filepath.Join("sub", "f.kml") {
		t.Errorf("Show = %q", got)
	}
}

func TestErr(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Skip(err)
	}
	_, err = os.ReadFile(filepath.Join(wd, "no-such-dir", "x.csv"))
	got := Err(err).Error()
	if want := filepath.Join("no-such-dir", "x.csv") + ": no such file or directory"; got != want {
		t.Errorf("Err = %q, want %q", got, want)
	}
	if !errors.Is(Err(err), fs.ErrNotExist) {
		t.Error("Err lost the cause")
	}
}
