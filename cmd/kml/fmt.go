package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kml-lang/kml/internal/sandbox"
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/format"
)

// fmtFiles is `kml fmt [-w] [-d] [FILE...]`: each file formatted by
// lang/format, printed (the default), rewritten in place (-w) or compared
// (-d: a unified diff, and status 1 when a file is not formatted). With no
// file, or "-", it formats standard input to standard output. A file that
// cannot be read or does not parse is reported and makes the status 2; the
// other files are still done.
func fmtFiles(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var write, diff bool
	var files []string
	for _, a := range args {
		switch a {
		case "-w", "--w":
			write = true
		case "-d", "--d":
			diff = true
		default:
			if len(a) > 1 && a[0] == '-' {
				fmt.Fprintf(stderr, "error: kml fmt: unknown option %s\nusage: kml fmt [-w] [-d] [FILE.kml...]\n", a)
				return exitStatic
			}
			files = append(files, a)
		}
	}
	if write && diff {
		fmt.Fprintf(stderr, "error: kml fmt: -w and -d do not go together\n")
		return exitStatic
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := exitOK
	for _, file := range files {
		var src []byte
		var err error
		name := file
		if file == "-" {
			if write {
				fmt.Fprintf(stderr, "error: kml fmt -w: cannot rewrite standard input\n")
				return exitStatic
			}
			name = "<stdin>"
			src, err = io.ReadAll(stdin)
		} else {
			src, err = os.ReadFile(file)
		}
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			status = exitStatic
			continue
		}
		out, err := format.Source(name, src)
		if err != nil {
			var list ast.ErrorList
			if errors.As(err, &list) {
				ast.Sources{name: string(src)}.Print(stderr, err)
			} else {
				fmt.Fprintf(stderr, "error: %v\n", err)
			}
			status = exitStatic
			continue
		}
		switch {
		case diff:
			if !bytes.Equal(src, out) {
				io.WriteString(stdout, format.Diff(name, string(src), string(out)))
				if status == exitOK {
					status = exitRuntime
				}
			}
		case write:
			if !bytes.Equal(src, out) {
				if err := rewrite(file, out); err != nil {
					fmt.Fprintf(stderr, "error: %v\n", err)
					status = exitStatic
				}
			}
		default:
			stdout.Write(out)
		}
	}
	return status
}

// rewrite replaces file with data through a temporary file and a rename,
// keeping the file's permissions.
func rewrite(file string, data []byte) error {
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	if err := sandbox.WriteFileAtomic(file, data); err != nil {
		return err
	}
	return os.Chmod(file, fi.Mode().Perm())
}
