package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/jupyter"
)

const jupyterUsage = `usage:
  kml jupyter install [--user | --prefix DIR] [--allow DIR]...
      write the kernelspec (default --user: ~/.local/share/jupyter/kernels/kml);
      the kernel may use the notebook's directory and the --allow ones
  kml jupyter kernel -f CONNECTION_FILE [--allow DIR]...   run the kernel (Jupyter starts it)
`

// runJupyter is `kml jupyter install` and `kml jupyter kernel`.
func runJupyter(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, jupyterUsage)
		return exitStatic
	}
	switch args[0] {
	case "install":
		return jupyterInstall(args[1:], stdout, stderr)
	case "kernel":
		return jupyterKernel(args[1:], stderr)
	}
	fmt.Fprintf(stderr, "error: unknown jupyter command %q\n%s", args[0], jupyterUsage)
	return exitStatic
}

func jupyterInstall(args []string, stdout, stderr io.Writer) int {
	kernels := ""
	var allowed []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--allow", "-allow":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "error: --allow needs a directory")
				return exitStatic
			}
			i++
			dir, err := filepath.Abs(args[i])
			if fi, serr := os.Stat(dir); err != nil || serr != nil || !fi.IsDir() {
				fmt.Fprintf(stderr, "error: --allow %s: not a directory\n", args[i])
				return exitStatic
			}
			allowed = append(allowed, dir)
		case "--user", "-user":
		case "--prefix", "-prefix":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "error: --prefix needs a directory")
				return exitStatic
			}
			i++
			kernels = jupyter.PrefixDir(args[i])
		default:
			fmt.Fprintf(stderr, "error: kml jupyter install: unknown option %s\n%s", args[i], jupyterUsage)
			return exitStatic
		}
	}
	if kernels == "" {
		dir, err := jupyter.UserDir()
		if err != nil {
			fmt.Fprintf(stderr, "error: kml jupyter install: %v\n", err)
			return exitRuntime
		}
		kernels = dir
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: kml jupyter install: cannot find this program: %v\n", err)
		return exitRuntime
	}
	dir, err := jupyter.Install(kernels, jupyter.NewSpec(exe, allowed...))
	if err != nil {
		fmt.Fprintf(stderr, "error: kml jupyter install: %v\n", err)
		return exitRuntime
	}
	fmt.Fprintf(stdout, "installed the KML kernel in %s (runs %s)\n", dir, exe)
	return exitOK
}

// jupyterKernel runs the kernel with the working directory (where Jupyter
// starts it: the notebook's directory) and the --allow ones granted, as
// kml repl does.
func jupyterKernel(args []string, stderr io.Writer) int {
	file := ""
	var rest []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-f" || args[i] == "--f" || args[i] == "--connection-file" {
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "error: -f needs the connection file")
				return exitStatic
			}
			i++
			file = args[i]
			continue
		}
		rest = append(rest, args[i])
	}
	if file == "" {
		fmt.Fprintf(stderr, "error: kml jupyter kernel needs -f CONNECTION_FILE\n%s", jupyterUsage)
		return exitStatic
	}
	allowed, ok := replOptions(rest, stderr)
	if !ok {
		return exitStatic
	}
	conn, err := jupyter.ReadConnection(file)
	if err != nil {
		fmt.Fprintf(stderr, "error: kml jupyter kernel: %v\n", err)
		return exitRuntime
	}
	wd, _ := os.Getwd()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	err = jupyter.Serve(context.Background(), jupyter.Config{
		Conn:       conn,
		Options:    eval.Options{Dirs: append([]string{wd}, allowed...), BaseDir: wd, NoReplay: noReplay()},
		Interrupts: sig,
		Log:        stderr,
	})
	if err != nil {
		fmt.Fprintf(stderr, "error: kml jupyter kernel: %v\n", err)
		return exitRuntime
	}
	return exitOK
}
