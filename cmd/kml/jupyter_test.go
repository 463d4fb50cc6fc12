package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/lang/jupyter"
)

// TestJupyterInstall checks the kernelspec `kml jupyter install` writes:
// this program, the connection file's placeholder, the --allow directory
// made absolute, and the names Jupyter shows.
func TestJupyterInstall(t *testing.T) {
	prefix := t.TempDir()
	var out, errw bytes.Buffer
	if code := run([]string{"jupyter", "install", "--prefix", prefix, "--allow", "testdata"}, nil, &out, &errw); code != exitOK {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	data, err := os.ReadFile(filepath.Join(prefix, "share", "jupyter", "kernels", "kml", "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec jupyter.Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	allow, _ := filepath.Abs("testdata")
	want := []string{exe, "jupyter", "kernel", "-f", "{connection_file}", "--allow", allow}
	if !slices.Equal(spec.Argv, want) || spec.DisplayName != "KML" || spec.Language != "kml" || spec.InterruptMode != "message" {
		t.Errorf("kernel.json = %s", data)
	}
	if code := run([]string{"jupyter", "install", "--allow", "no-such-dir"}, nil, &out, &errw); code != exitStatic {
		t.Errorf("--allow of a missing directory: exit %d", code)
	}
}

// nbclientReady reports whether python has nbclient and jupyter_client.
func nbclientReady(python string) bool {
	return exec.Command(python, "-c", "import nbclient, jupyter_client, nbformat").Run() == nil
}

// TestJupyterNotebook executes examples/notebooks/bke_tour.ipynb through
// Debian's nbclient and jupyter_client with this program as the kernel,
// and interrupts a long fit by message and by SIGINT
// (testdata/jupyter_notebook.py says what it checks). Without the Python
// packages it tries to install them with apt-get, and skips saying why
// when it cannot.
func TestJupyterNotebook(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the notebook test starts Python and a kernel (about 5 s)")
	}
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no /usr/bin/python3: the notebook test needs Debian's python3-nbclient and python3-jupyter-client")
	}
	if !nbclientReady(python) {
		if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
			t.Skip("python3-nbclient and python3-jupyter-client are missing, and apt-get cannot install them here (not root, or no apt-get)")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		out, err := exec.CommandContext(ctx, "apt-get", "install", "-y", "-q",
			"python3-nbclient", "python3-jupyter-client", "python3-nbformat").CombinedOutput()
		cancel()
		if !nbclientReady(python) {
			t.Skipf("python3-nbclient and python3-jupyter-client are missing and apt-get could not install them (%v): %s",
				err, lastLine(string(out)))
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := filepath.Abs("../../examples/data")
	spec := jupyter.NewSpec(exe, data)
	spec.Env = map[string]string{"KML_TEST_MAIN": "1"} // the test binary runs as kml (TestMain)
	dataDir := t.TempDir()
	if _, err := jupyter.Install(filepath.Join(dataDir, "kernels"), spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "testdata/jupyter_notebook.py",
		"../../examples/notebooks/bke_tour.ipynb", filepath.Join(dataDir, "bke_tour.out.ipynb"))
	cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+dataDir, "JUPYTER_PLATFORM_DIRS=1", "JUPYTER_RUNTIME_DIR="+filepath.Join(dataDir, "runtime"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Errorf("the notebook test failed: %v", err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestJupyterUsage checks the kernel's command-line errors: each says
// what is wrong, with a usage status, never a panic.
func TestJupyterUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"transport": "udp", "ip": "127.0.0.1"}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"jupyter"}, exitStatic, "usage:"},
		{[]string{"jupyter", "notebook"}, exitStatic, `unknown jupyter command "notebook"`},
		{[]string{"jupyter", "kernel"}, exitStatic, "needs -f CONNECTION_FILE"},
		{[]string{"jupyter", "kernel", "-f", filepath.Join(dir, "missing.json")}, exitRuntime, "missing.json: no such file"},
		{[]string{"jupyter", "kernel", "-f", bad}, exitRuntime, `transport "udp"`},
		{[]string{"jupyter", "install", "--global"}, exitStatic, "unknown option --global"},
	} {
		var out, errw bytes.Buffer
		if code := run(c.args, nil, &out, &errw); code != c.code || !strings.Contains(errw.String(), c.msg) {
			t.Errorf("kml %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), code, errw.String(), c.code, c.msg)
		}
	}
}
