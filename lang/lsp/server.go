package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kml-lang/kml/lang/format"

	"github.com/kml-lang/kml/lang/assist"
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/lang/eval"
)

// Format formats a KML source file, as `kml fmt` does (lang/format); name
// is used in its errors. A test may replace it; when nil the formatting
// request fails with "formatting is not available".
var Format = format.Source

// errNoFormat is the reply to a formatting request without Format.
var errNoFormat = &respError{Code: codeRequestFailed, Message: "formatting is not available"}

// document is an open file.
type document struct {
	uri     string
	path    string
	version int
	text    *text
	opened  int
}

// server is one session with an editor.
type server struct {
	conn *conn
	reg  *eval.Registry
	log  io.Writer
	docs map[string]*document
	// stale holds the documents changed since their diagnostics were last
	// published; opened numbers the documents in the order they opened.
	stale       map[*document]bool
	opened      int
	initialized bool
	shutdown    bool
}

// Config is what Serve needs. The command wires the library in (cmd/kml
// passes the registry stdlib.Register filled), so this package links no
// builtins of its own and serves an embedder's registry as well.
type Config struct {
	// Registry supplies the builtins the checks know and hover and
	// completion describe; nil means eval.Builtins.
	Registry *eval.Registry
	// In and Out are the editor's connection.
	In  io.Reader
	Out io.Writer
	// Log receives a line for each message the server could not handle;
	// nil discards them.
	Log io.Writer
}

// Serve answers the editor on cfg.In and cfg.Out until the exit
// notification. It returns nil after shutdown and exit, and an error when
// the input ends or exit comes without shutdown (so `kml lsp` exits 1, as
// LSP asks).
func Serve(cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Registry == nil {
		cfg.Registry = eval.Builtins
	}
	s := &server{conn: newConn(cfg.In, cfg.Out), reg: cfg.Registry, log: cfg.Log, docs: map[string]*document{}, stale: map[*document]bool{}}
	done := make(chan struct{})
	defer close(done)
	in := s.readAll(done)
	for {
		if len(in) == 0 {
			// Nothing is waiting: bring the diagnostics of changed
			// documents up to date before blocking.
			if err := s.publishStale(); err != nil {
				return err
			}
		}
		r := <-in
		body, err := r.body, r.err
		if err == io.EOF {
			return errors.New("input ended before exit")
		}
		if err != nil {
			return err
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			s.conn.reply(json.RawMessage("null"), nil, &respError{Code: codeParseError, Message: err.Error()})
			continue
		}
		if m.Method == "exit" {
			if !s.shutdown {
				return errors.New("exit before shutdown")
			}
			return nil
		}
		if m.Method == "" {
			continue // a response to a request of ours: there are none
		}
		result, err := s.safeHandle(&m)
		if m.isRequest() {
			if werr := s.conn.reply(m.ID, result, err); werr != nil {
				return werr
			}
		} else if err != nil {
			fmt.Fprintf(s.log, "kml lsp: %s: %v\n", m.Method, err)
		}
	}
}

// framed is one message read from the editor, or the error that ended the
// input.
type framed struct {
	body []byte
	err  error
}

// readAll reads the editor's messages on a goroutine of its own, so that
// the loop can see whether more are waiting: a burst of 3,000 didChange
// notifications (a paste, a formatter, a script driving the editor) then
// costs one analysis, not 3,000 before the next hover is answered. Once
// done is closed (Serve returned) it stops at its next message instead of
// waiting for ever to hand it on: a session that exits with messages
// still coming left the goroutine behind.
func (s *server) readAll(done <-chan struct{}) <-chan framed {
	in := make(chan framed, 256)
	go func() {
		for {
			body, err := s.conn.read()
			select {
			case in <- framed{body, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return in
}

// publishStale publishes the diagnostics of every document changed since
// its last publication, in the order they were opened.
func (s *server) publishStale() error {
	if len(s.stale) == 0 {
		return nil
	}
	docs := make([]*document, 0, len(s.stale))
	for d := range s.stale {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].opened < docs[j].opened })
	clear(s.stale)
	for _, d := range docs {
		if err := s.publish(d); err != nil {
			return err
		}
	}
	return nil
}

// safeHandle is handle with a panic (a bug in KML on text half typed)
// turned into an error reply, so one bad keystroke does not end the
// editor's session.
func (s *server) safeHandle(m *message) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, &respError{Code: codeInternalError, Message: fmt.Sprintf("internal error: %v (a bug in KML; please report it)", r)}
		}
	}()
	return s.handle(m)
}

// handle runs one request or notification and returns the request's result.
func (s *server) handle(m *message) (any, error) {
	switch {
	case s.shutdown:
		return nil, &respError{Code: codeInvalidRequest, Message: "the server is shut down"}
	case m.Method == "initialize":
		s.initialized = true
		return map[string]any{
			"capabilities": map[string]any{
				"textDocumentSync":           1, // full text on every change
				"hoverProvider":              true,
				"completionProvider":         map[string]any{"triggerCharacters": []string{"(", ","}},
				"definitionProvider":         true,
				"documentFormattingProvider": true,
			},
			"serverInfo": map[string]string{"name": "kml", "version": eval.Version},
		}, nil
	case !s.initialized:
		return nil, &respError{Code: codeNotInitialized, Message: "initialize first"}
	}
	switch m.Method {
	case "initialized", "$/cancelRequest", "$/setTrace", "textDocument/didSave", "workspace/didChangeConfiguration":
		return nil, nil
	case "shutdown":
		s.shutdown = true
		return nil, nil
	case "textDocument/didOpen":
		var p didOpenParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, invalidParams(err)
		}
		s.opened++
		d := &document{uri: p.TextDocument.URI, path: uriToPath(p.TextDocument.URI), version: p.TextDocument.Version, text: newText(p.TextDocument.Text), opened: s.opened}
		if old, ok := s.docs[d.uri]; ok {
			delete(s.stale, old)
		}
		s.docs[d.uri] = d
		s.stale[d] = true
		return nil, nil
	case "textDocument/didChange":
		var p didChangeParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, invalidParams(err)
		}
		d, ok := s.docs[p.TextDocument.URI]
		if !ok {
			return nil, fmt.Errorf("change to %s, which is not open", p.TextDocument.URI)
		}
		for _, c := range p.ContentChanges {
			if c.Range != nil { // we asked for full text; apply a range anyway
				src := d.text.src
				c.Text = src[:d.text.offset(c.Range.Start)] + c.Text + src[d.text.offset(c.Range.End):]
			}
			d.text = newText(c.Text)
		}
		d.version = p.TextDocument.Version
		s.stale[d] = true
		return nil, nil
	case "textDocument/didClose":
		var p didCloseParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, invalidParams(err)
		}
		delete(s.stale, s.docs[p.TextDocument.URI])
		delete(s.docs, p.TextDocument.URI)
		return nil, s.conn.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []diagnostic{}})
	case "textDocument/hover":
		return withPosition(s, m, s.hover)
	case "textDocument/completion":
		return withPosition(s, m, s.complete)
	case "textDocument/definition":
		return withPosition(s, m, s.definition)
	case "textDocument/formatting":
		var p formattingParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, invalidParams(err)
		}
		d, ok := s.docs[p.TextDocument.URI]
		if !ok {
			return nil, fmt.Errorf("%s is not open", p.TextDocument.URI)
		}
		return s.format(d)
	}
	if m.isRequest() {
		return nil, &respError{Code: codeMethodNotFound, Message: "method not supported: " + m.Method}
	}
	return nil, nil // notifications we do not handle are dropped, as LSP allows
}

func invalidParams(err error) error {
	return &respError{Code: codeInvalidParams, Message: err.Error()}
}

// withPosition decodes a text document position request and calls f with
// the document and the cursor as a KML line and rune column.
func withPosition(s *server, m *message, f func(d *document, a *analysis, line, col int, p position) (any, error)) (any, error) {
	var p positionParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, invalidParams(err)
	}
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open", p.TextDocument.URI)
	}
	line, col := d.text.fromLSP(p.Position)
	return f(d, analyze(s.reg, d.path, d.text), line, col, p.Position)
}

// publish sends the document's diagnostics.
func (s *server) publish(d *document) error {
	v := d.version
	return s.conn.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{
		URI: d.uri, Version: &v, Diagnostics: diagnose(s.reg, d.path, d.text),
	})
}

func (s *server) hover(d *document, a *analysis, line, col int, _ position) (any, error) {
	t := a.at(line, col)
	var b *check.Binding
	switch {
	case t.id == nil || t.field:
		return nil, nil
	case t.call != nil:
		// A named argument: show the function it belongs to.
		id, ok := t.call.Fn.(*ast.Ident)
		if !ok {
			return nil, nil
		}
		b = a.scopeAt(line, col).Lookup(id.Name)
	default:
		b = a.scopeAt(line, col).Lookup(t.id.Name)
	}
	if b == nil {
		return nil, nil
	}
	text := a.hoverText(b)
	if text == "" {
		return nil, nil
	}
	r := d.text.span(t.id.At)
	return hover{Contents: markupContent{Kind: "markdown", Value: text}, Range: &r}, nil
}

func (s *server) complete(d *document, a *analysis, line, col int, p position) (any, error) {
	scope := a.scopeAt(line, col)
	before := []rune(d.text.src[:d.text.offset(p)])
	sig := func(name string) *check.Signature {
		if b := scope.Lookup(name); b != nil {
			return b.Sig
		}
		return nil
	}
	_, cands := assist.Complete(before, scope.Visible(), sig)
	callee := assist.Callee(before[:len(before)-len(trailingName(before))])
	items := []completionItem{}
	for i, c := range cands {
		item := completionItem{Label: c, SortText: fmt.Sprintf("%05d", i)}
		if strings.HasSuffix(c, ": ") {
			item.Label = strings.TrimSuffix(c, " ")
			item.InsertText = c
			item.Kind = kindField
			item.Detail = "named argument of " + callee
		} else {
			b := scope.Lookup(c)
			item.Kind = completionKind(b)
			if b != nil {
				item.Detail = b.Kind.String()
				if b.Sig != nil {
					item.Detail = b.Sig.String()
				}
			}
		}
		items = append(items, item)
	}
	return completionList{Items: items}, nil
}

// trailingName is the part of a name that before ends in.
func trailingName(before []rune) []rune {
	i := len(before)
	for i > 0 && assist.IsNameRune(before[i-1]) {
		i--
	}
	return before[i:]
}

func (s *server) definition(d *document, a *analysis, line, col int, _ position) (any, error) {
	t := a.at(line, col)
	if t.import_ != nil {
		path := resolveImport(a.path, t.import_.Path.Value)
		if _, err := a.sb.ReadPath(filepath.Dir(a.path), t.import_.Path.Value); err != nil {
			return nil, nil // missing, or outside the document's directory
		}
		return []location{{URI: pathToURI(path)}}, nil
	}
	if t.id == nil || t.field || t.call != nil {
		return nil, nil
	}
	b := a.scopeAt(line, col).Lookup(t.id.Name)
	if b == nil || b.Kind == check.Builtin || !b.Pos.IsValid() {
		return nil, nil
	}
	txt := d.text
	if b.Pos.File != d.path {
		src, err := eval.ReadSource(b.Pos.File)
		if err != nil {
			return nil, nil
		}
		txt = newText(src)
	}
	return []location{{URI: pathToURI(b.Pos.File), Range: txt.span(b.Pos)}}, nil
}

func (s *server) format(d *document) (any, error) {
	if Format == nil {
		return nil, errNoFormat
	}
	out, err := Format(d.path, []byte(d.text.src))
	if err != nil {
		return nil, err
	}
	if string(out) == d.text.src {
		return []textEdit{}, nil
	}
	return []textEdit{{Range: lspRange{End: d.text.end()}, NewText: string(out)}}, nil
}

// uriToPath is the file a file: URI names; other URIs (an editor's unsaved
// buffer) are kept as names in the working directory.
func uriToPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}

func pathToURI(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
