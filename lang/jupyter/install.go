package jupyter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"

	"github.com/kml-lang/kml/internal/sandbox"
)

// Spec is a kernelspec's kernel.json.
type Spec struct {
	Argv          []string `json:"argv"`
	DisplayName   string   `json:"display_name"`
	Language      string   `json:"language"`
	InterruptMode string   `json:"interrupt_mode"`
	// Env is added to the kernel's environment (a test sets one).
	Env map[string]string `json:"env,omitempty"`
}

// NewSpec is the kernelspec that starts exe (the kml binary) as a kernel
// that may also read and write the directories allowed (absolute paths),
// beside the notebook's own. Interrupts come as interrupt_request on the
// control socket ("message"), which works wherever the kernel runs;
// SIGINT works as well.
func NewSpec(exe string, allowed ...string) Spec {
	argv := []string{exe, "jupyter", "kernel", "-f", "{connection_file}"}
	for _, dir := range allowed {
		argv = append(argv, "--allow", dir)
	}
	return Spec{
		Argv:          argv,
		DisplayName:   "KML",
		Language:      "kml",
		InterruptMode: "message",
	}
}

// UserDir is where Jupyter looks for the current user's kernels: the
// kernels directory under $JUPYTER_DATA_DIR, else the platform's data
// directory (~/.local/share/jupyter on Linux, honouring XDG_DATA_HOME).
func UserDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Join(d, "kernels"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter", "kernels"), nil
	case "windows":
		if d := os.Getenv("APPDATA"); d != "" {
			return filepath.Join(d, "jupyter", "kernels"), nil
		}
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "jupyter", "kernels"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter", "kernels"), nil
}

// PrefixDir is the kernels directory of an installation prefix (a
// virtual environment's, say).
func PrefixDir(prefix string) string { return filepath.Join(prefix, "share", "jupyter", "kernels") }

// Install writes spec as kernels/kml/kernel.json and returns the
// kernelspec's directory.
func Install(kernels string, spec Spec) (string, error) {
	dir := filepath.Join(kernels, "kml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", err
	}
	return dir, sandbox.WriteFileAtomic(filepath.Join(dir, "kernel.json"), append(data, '\n'))
}
