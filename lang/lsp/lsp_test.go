package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib"
)

// builtins is the whole library, the registry cmd/kml passes.
var builtins = func() *eval.Registry {
	r := eval.NewRegistry()
	stdlib.Register(r)
	return r
}()

// TestMain lets the test binary stand in for `kml lsp` when an editor
// started by a test runs it (KML_LSP_SERVE=1).
func TestMain(m *testing.M) {
	if os.Getenv("KML_LSP_SERVE") == "1" {
		if err := Serve(Config{Registry: builtins, In: os.Stdin, Out: os.Stdout, Log: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, "kml lsp:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// client is the editor's end of a session, keeping a transcript.
type client struct {
	t     *testing.T
	c     *conn
	id    int
	log   strings.Builder
	notes []message // notifications received, in order
}

func (c *client) record(dir string, body []byte) {
	fmt.Fprintf(&c.log, "%s %s\n", dir, body)
}

func (c *client) send(method string, params any, id int) {
	c.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	if id > 0 {
		m["id"] = id
	}
	body, _ := json.Marshal(m)
	c.record("-->", body)
	if err := c.c.write(json.RawMessage(body)); err != nil {
		c.t.Fatalf("sending %s: %v", method, err)
	}
}

func (c *client) recv() message {
	c.t.Helper()
	body, err := c.c.read()
	if err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	c.record("<--", body)
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatalf("reply %s: %v", body, err)
	}
	return m
}

// request sends a request and returns its response, keeping notifications
// that come before it.
func (c *client) request(method string, params any) message {
	c.t.Helper()
	c.id++
	c.send(method, params, c.id)
	for {
		m := c.recv()
		if m.Method != "" {
			c.notes = append(c.notes, m)
			continue
		}
		if string(m.ID) != fmt.Sprint(c.id) {
			c.t.Fatalf("%s: reply to id %s, want %d", method, m.ID, c.id)
		}
		return m
	}
}

// diagnostics waits for the next publishDiagnostics.
func (c *client) diagnostics() publishDiagnosticsParams {
	c.t.Helper()
	m := c.recv()
	if m.Method != "textDocument/publishDiagnostics" {
		c.t.Fatalf("got %s, want publishDiagnostics", m.Method)
	}
	var p publishDiagnosticsParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.t.Fatal(err)
	}
	return p
}

func decode[T any](t *testing.T, m message) T {
	t.Helper()
	var v T
	if m.Error != nil {
		t.Fatalf("error reply: %d %s", m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, &v); err != nil {
		t.Fatalf("result %s: %v", m.Result, err)
	}
	return v
}

const (
	badSrc  = "# a tiny program\nlet xs = [1, 2, 3]\nlet k = rbf(1.0)\nlet g = gram(k, xs)\nlet s = \"😀\" + zz\n"
	goodSrc = "# a tiny program\nlet xs = [1, 2, 3]\nlet k = rbf(1.0)\nlet g = gram(k, xs)\nlet s = \"😀\"\nfn f(a, b) = a + b\nmodel m {\n  mu ~ normal(0, 1)\n  xs ~ normal(mu, 1)\n}\n"
)

// TestSession drives the server as an editor does and checks each reply.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.kml")
	uri := pathToURI(path)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(Config{Registry: builtins, In: sr, Out: sw}) }()
	c := &client{t: t, c: newConn(cr, cw)}
	defer func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("transcript:\n%s", c.log.String())
		}
		if out := os.Getenv("KML_LSP_TRANSCRIPT"); out != "" {
			os.WriteFile(out, []byte(c.log.String()), 0o644)
		}
	}()

	init := decode[struct {
		Capabilities map[string]any `json:"capabilities"`
	}](t, c.request("initialize", map[string]any{"processId": nil, "rootUri": pathToURI(dir), "capabilities": map[string]any{}}))
	for _, cap := range []string{"hoverProvider", "completionProvider", "definitionProvider", "documentFormattingProvider"} {
		if init.Capabilities[cap] == nil {
			t.Errorf("initialize: no %s in %v", cap, init.Capabilities)
		}
	}
	c.send("initialized", map[string]any{}, 0)

	// didOpen with an error after a character outside the BMP: 😀 is two
	// UTF-16 units, so zz is at character 15 though it is the 15th rune.
	c.send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "kml", "version": 1, "text": badSrc}}, 0)
	d := c.diagnostics()
	if d.URI != uri || len(d.Diagnostics) != 1 {
		t.Fatalf("didOpen: diagnostics %+v, want one for %s", d, uri)
	}
	got := d.Diagnostics[0]
	want := lspRange{Start: position{4, 15}, End: position{4, 17}}
	if got.Range != want || !strings.Contains(got.Message, "undefined: zz") || got.Severity != severityError {
		t.Errorf("diagnostic %+v; want undefined: zz at %+v", got, want)
	}

	// didChange fixing it clears the diagnostics.
	c.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": goodSrc}}}, 0)
	if d := c.diagnostics(); len(d.Diagnostics) != 0 || d.Version == nil || *d.Version != 2 {
		t.Errorf("didChange: diagnostics %+v, want none for version 2", d)
	}

	at := func(line, char int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}
	}
	// Hover on the builtin rbf: its signature and :help text.
	h := decode[hover](t, c.request("textDocument/hover", at(2, 9)))
	if !strings.Contains(h.Contents.Value, "rbf(ell)") || !strings.Contains(h.Contents.Value, "squared-exponential") {
		t.Errorf("hover on rbf: %q", h.Contents.Value)
	}
	// Hover on a user's fn and model gives their kind.
	h = decode[hover](t, c.request("textDocument/hover", at(5, 3)))
	if !strings.Contains(h.Contents.Value, "fn f(a, b) = a + b\n```\nfunction") {
		t.Errorf("hover on fn f: %q", h.Contents.Value)
	}
	h = decode[hover](t, c.request("textDocument/hover", at(6, 6)))
	if !strings.Contains(h.Contents.Value, "`mu`: model parameter") {
		t.Errorf("hover on model m: %q", h.Contents.Value)
	}

	// Completion inside gram(k, |xs) offers its named arguments first.
	comp := decode[completionList](t, c.request("textDocument/completion", at(3, 16)))
	var labels []string
	for _, it := range comp.Items {
		labels = append(labels, it.Label)
	}
	if len(comp.Items) < 4 || comp.Items[0].InsertText != "k: " || comp.Items[1].Label != "x:" || !contains(labels, "xs") || !contains(labels, "rbf") {
		t.Errorf("completion in gram(k, : %q", labels)
	}

	// Definition of xs, used on line 3, is its let on line 1.
	locs := decode[[]location](t, c.request("textDocument/definition", at(3, 17)))
	if len(locs) != 1 || locs[0].URI != uri || locs[0].Range != (lspRange{Start: position{1, 4}, End: position{1, 6}}) {
		t.Errorf("definition of xs: %+v", locs)
	}
	// Inside the model, xs ~ ... is an observation of the let; mu is the
	// model's parameter.
	locs = decode[[]location](t, c.request("textDocument/definition", at(8, 14)))
	if len(locs) != 1 || locs[0].Range.Start != (position{7, 2}) {
		t.Errorf("definition of mu: %+v", locs)
	}

	// Formatting: without a formatter wired in, the "not available" error.
	r := c.request("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}})
	if Format == nil && (r.Error == nil || r.Error.Message != "formatting is not available") {
		t.Errorf("formatting: %+v, want the not-available error", r)
	}
	if Format != nil && r.Error != nil {
		t.Errorf("formatting: %v", r.Error.Message)
	}

	if r := c.request("shutdown", nil); r.Error != nil || string(r.Result) != "null" {
		t.Errorf("shutdown: %+v", r)
	}
	c.send("exit", nil, 0)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after shutdown and exit: %v", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard, for a crowded machine
		t.Fatal("Serve did not return after exit")
	}
}

// TestFormatHook checks that formatting replaces the document with
// Format's output once a formatter is wired in.
func TestFormatHook(t *testing.T) {
	old := Format
	defer func() { Format = old }()
	Format = func(name string, src []byte) ([]byte, error) { return []byte("let x = 1\n"), nil }
	d := &document{path: "a.kml", text: newText("let  x=1\n")}
	edits, err := (&server{}).format(d)
	e := edits.([]textEdit)
	if err != nil || len(e) != 1 || e[0].NewText != "let x = 1\n" || e[0].Range.End != (position{1, 0}) {
		t.Errorf("format: %+v, %v", edits, err)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestPanicIsAnError checks that a panic while handling a request becomes
// an error reply and the session goes on.
func TestPanicIsAnError(t *testing.T) {
	old := Format
	defer func() { Format = old }()
	Format = func(string, []byte) ([]byte, error) { panic("boom") }
	s := &server{initialized: true, docs: map[string]*document{"file:///a.kml": {path: "/a.kml", text: newText("")}}}
	_, err := s.safeHandle(&message{Method: "textDocument/formatting", ID: []byte("1"), Params: []byte(`{"textDocument":{"uri":"file:///a.kml"}}`)})
	if re, ok := err.(*respError); !ok || re.Code != codeInternalError || !strings.Contains(re.Message, "boom") {
		t.Errorf("panic gave %v", err)
	}
}

// TestHostileFrames checks that frames no editor sends end the session with
// an error instead of exhausting memory: a body length of 999999999999 (which
// allocated that much), a header line without end, and that an import of a
// device or a FIFO is a diagnostic, not a hang.
func TestHostileFrames(t *testing.T) {
	for name, in := range map[string]string{
		"huge length": "Content-Length: 999999999999\r\n\r\n{}",
		"long header": "X-Pad: " + strings.Repeat("a", 1<<20),
		"no length":   "Content-Type: x\r\n\r\n{}",
	} {
		var out strings.Builder
		err := Serve(Config{Registry: builtins, In: strings.NewReader(in), Out: &out})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestBurstOfChanges sends 3,000 changes to a document in one burst, then a
// hover: the hover is answered, the diagnostics reach the last version, and
// not one analysis per change is published.
func TestBurstOfChanges(t *testing.T) {
	dir := t.TempDir()
	uri := pathToURI(filepath.Join(dir, "a.kml"))
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(Config{Registry: builtins, In: sr, Out: sw}) }()
	w := newConn(cr, cw)
	send := func(method string, params any, id int) {
		m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
		if id > 0 {
			m["id"] = id
		}
		if err := w.write(m); err != nil {
			t.Error(err)
		}
	}
	const n = 3000
	go func() {
		send("initialize", map[string]any{}, 1)
		send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1, "text": goodSrc}}, 0)
		for v := 2; v <= n; v++ {
			src := goodSrc
			if v == n {
				src = badSrc
			}
			send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": []map[string]any{{"text": src}}}, 0)
		}
		send("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 2, "character": 9}}, 2)
	}()
	published, last, errs := 0, 0, 0
	hovered := false
	for !hovered || last != n {
		body, err := w.read()
		if err != nil {
			t.Fatal(err)
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var p publishDiagnosticsParams
			json.Unmarshal(m.Params, &p)
			published++
			last, errs = *p.Version, len(p.Diagnostics)
		case string(m.ID) == "2":
			hovered = true
		}
	}
	if errs == 0 {
		t.Error("the last version's error was not diagnosed")
	}
	if published >= n {
		t.Errorf("%d diagnostics published for %d versions; want fewer than one per change", published, n)
	}
	go func() {
		send("shutdown", nil, 3)
		send("exit", nil, 0)
	}()
	for {
		body, err := w.read()
		var m message
		if err != nil || json.Unmarshal(body, &m) != nil || string(m.ID) == "3" {
			break
		}
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestExitLeavesNoReader: a session that exits with 1,000 more messages
// coming ends its reading goroutine, which waited for ever to hand the
// 257th on (one goroutine left per such session in an embedder).
func TestExitLeavesNoReader(t *testing.T) {
	before := runtime.NumGoroutine()
	var in bytes.Buffer
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`} {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	for range 1000 {
		fmt.Fprintf(&in, "Content-Length: 2\r\n\r\n{}")
	}
	if err := Serve(Config{Registry: builtins, In: &in, Out: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d goroutines after the session, %d before", runtime.NumGoroutine(), before)
		}
	}
}

// TestHostileImports: a document importing a device, a FIFO or a sparse
// 64 GiB file gets its diagnostics, hover and go-to-definition at once
// (issue 38: after import "/dev/zero" a hover got no answer in 15 s).
func TestHostileImports(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.kml"), 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	f, _ := os.Create(filepath.Join(dir, "huge.kml"))
	f.Truncate(64 << 30) // sparse: nothing is written
	f.Close()
	s := &server{}
	for _, imp := range []string{"/dev/zero", "fifo.kml", "huge.kml", dir} {
		path := filepath.Join(dir, "main.kml")
		d := &document{uri: pathToURI(path), path: path, text: newText(fmt.Sprintf("import %q\nlet y = 1\n", imp))}
		done := make(chan []diagnostic, 1)
		go func() {
			a := analyze(builtins, path, d.text)
			s.hover(d, a, 2, 5, position{})
			s.definition(d, a, 1, 10, position{})
			done <- diagnose(builtins, path, d.text)
		}()
		select {
		case diags := <-done:
			if len(diags) == 0 || diags[0].Range.Start.Line != 0 {
				t.Errorf("import %q: diagnostics %+v, want an error on the import", imp, diags)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("import %q: no answer within 20 s", imp)
		}
	}
}
