package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nvimInit starts the server for the buffer, as editors/vim/README.md
// shows (with vim.lsp.start_client, which Neovim 0.7, Debian's, has), and
// writes the buffer's diagnostics to $KML_NVIM_OUT once one arrives.
const nvimInit = `
local out = os.getenv("KML_NVIM_OUT")
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("KML_NVIM_FILE")))
local client = vim.lsp.start_client({
  name = "kml",
  cmd = { os.getenv("KML_LSP_BIN"), "-test.run=^$" },
  root_dir = vim.fn.getcwd(),
})
vim.lsp.buf_attach_client(0, client)
vim.wait(120000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local f = io.open(out, "w")
for _, d in ipairs(vim.diagnostic.get(0)) do
  f:write(string.format("%d:%d: %s\n", d.lnum, d.col, d.message))
end
f:close()
vim.cmd("qa!")
`

// TestNeovim checks that headless Neovim attaches the server to a .kml
// buffer and receives its diagnostic. The test binary stands in for
// `kml lsp` (see TestMain).
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not on PATH (Debian: apt-get install neovim); skipping the Neovim attach test")
	}
	self, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary to serve as kml lsp:", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.kml")
	os.WriteFile(file, []byte("let xs = [1, 2, 3]\nprint(sum(xz))\n"), 0o644)
	initFile := filepath.Join(dir, "init.lua")
	os.WriteFile(initFile, []byte(nvimInit), 0o644)
	out := filepath.Join(dir, "diagnostics.txt")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard, for a crowded machine
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", initFile)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KML_LSP_SERVE=1", "KML_LSP_BIN="+self, "KML_NVIM_OUT="+out, "KML_NVIM_FILE="+file,
		"XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_CACHE_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no diagnostics: %v", err)
	}
	t.Logf("Neovim's diagnostics:\n%s", got)
	if want := "1:10: undefined: xz; did you mean xs?"; !strings.Contains(string(got), want) {
		t.Errorf("Neovim's diagnostics %q; want %q", got, want)
	}
}
