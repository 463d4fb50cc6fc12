package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// FuzzFraming reads any bytes as the editor's stream of framed messages:
// never a panic, never a body over maxBody (so never an allocation of a
// claimed length), and every body read goes back out through write and in
// again unchanged. Its seed corpus runs in every go test; fuzz with
//
//	go test -run XXX -fuzz FuzzFraming ./lang/lsp
func FuzzFraming(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}Content-Length: 2\r\n\r\n[]",
		"content-length:  5 \r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\nnull ",
		"Content-Length: 999999999999\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 0x10\r\n\r\n",
		"Content-Length: 3\nContent-Length: 1\n\n{}}",
		"X-Pad: " + strings.Repeat("a", 5000) + "\r\n\r\n",
		"no colon\r\n\r\n",
		"Content-Length: 10\r\n\r\nshort",
		"\r\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newConn(bytes.NewReader(data), io.Discard)
		for range 1000 {
			body, err := c.read()
			if err != nil {
				return
			}
			if len(body) > maxBody {
				t.Fatalf("a body of %d bytes, over the limit %d", len(body), maxBody)
			}
			var m message
			json.Unmarshal(body, &m) // any body: an error, never a panic
			var out bytes.Buffer
			if err := newConn(nil, &out).write(json.RawMessage(body)); err != nil {
				continue // not JSON: write refuses what it cannot send
			}
			back, err := newConn(&out, io.Discard).read()
			if err != nil {
				t.Fatalf("a frame we wrote does not read back: %v\n%q", err, out.String())
			}
			var a, b any
			if json.Unmarshal(body, &a) == nil && json.Unmarshal(back, &b) == nil && fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("%q came back as %q", body, back)
			}
		}
	})
}

// fuzzSep separates the messages of FuzzServe's input; each is framed
// with its own Content-Length.
const fuzzSep = "\x1e"

// FuzzServe runs a whole session on any sequence of message bodies, each
// framed correctly so that the fuzzer reaches the handlers: the server
// answers within 20 s, every frame it writes reads back as JSON, and no
// request gets the internal-error reply a recovered panic becomes. Fuzz
// with
//
//	go test -run XXX -fuzz FuzzServe ./lang/lsp
func FuzzServe(f *testing.F) {
	uri := "file:///nonexistent-kml-fuzz/a.kml"
	src := `import "b.kml"
let x = [1, 2, 3]
fn f(a, b) = a + b
model m {
  mu ~ normal(0, 1)
  x ~ normal(mu, 1)
}
let post = sample(m, seed: 1)
print(f(x, 1), mean(x))
`
	open := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"kml","version":1,"text":%q}}}`, uri, src)
	pos := func(method string, id, line, char int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}}`, id, method, uri, line, char)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	for _, session := range [][]string{
		{initialize, `{"jsonrpc":"2.0","method":"initialized","params":{}}`, open,
			pos("textDocument/hover", 2, 2, 4), pos("textDocument/completion", 3, 8, 14), pos("textDocument/definition", 4, 8, 6),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"textDocument/formatting","params":{"textDocument":{"uri":%q},"options":{"tabSize":2}}}`, uri),
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"range":{"start":{"line":1,"character":4},"end":{"line":1,"character":5}},"text":"y"}]}}`, uri),
			pos("textDocument/hover", 6, 1, 4),
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":%q}}}`, uri),
			`{"jsonrpc":"2.0","id":7,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`},
		{initialize, open, pos("textDocument/hover", 2, -1, -5), pos("textDocument/hover", 3, 99999, 99999),
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":0,"character":3}},"text":"😀\u0000"}]}}`, uri),
			pos("textDocument/completion", 4, 0, 1)},
		{pos("textDocument/hover", 1, 0, 0), initialize, `{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover","params":[]}`,
			`{"jsonrpc":"2.0","id":"s","method":"unknown/method"}`, `not json`, `{"method":"textDocument/didOpen","params":{"textDocument":null}}`,
			`{"jsonrpc":"2.0","id":2,"result":{}}`, `{"jsonrpc":"2.0","method":"exit"}`},
	} {
		f.Add(strings.Join(session, fuzzSep))
	}
	f.Fuzz(func(t *testing.T, input string) {
		var in bytes.Buffer
		for _, body := range strings.Split(input, fuzzSep) {
			fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(body), body)
		}
		var out bytes.Buffer
		done := make(chan struct{})
		go func() {
			defer close(done)
			Serve(Config{Registry: builtins, In: &in, Out: &out})
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("no end within 20 s of a session of %d bytes", len(input))
		}
		c := newConn(&out, io.Discard)
		for {
			body, err := c.read()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("the server wrote a frame that does not read back: %v", err)
			}
			var m message
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("the server wrote a body that is not a message: %v\n%s", err, body)
			}
			if m.Error != nil && m.Error.Code == codeInternalError {
				t.Fatalf("a request crashed its handler: %s", m.Error.Message)
			}
		}
	})
}
