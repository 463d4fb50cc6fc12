package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// message is a JSON-RPC 2.0 request, notification or response as read.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *respError      `json:"error,omitempty"`
}

// isRequest reports whether m expects a reply (a notification has no id).
func (m *message) isRequest() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// respError is a JSON-RPC error object.
type respError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *respError) Error() string { return e.Message }

// JSON-RPC and LSP error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeNotInitialized = -32002
	codeRequestFailed  = -32803
)

// conn reads and writes framed messages: a header block of
// "Name: value\r\n" lines, a blank line, then Content-Length bytes of JSON.
type conn struct {
	r  *bufio.Reader
	mu sync.Mutex
	w  io.Writer
}

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{r: bufio.NewReaderSize(r, maxHeaderLine), w: w}
}

// Limits on what the editor may send: a header line longer than
// maxHeaderLine or a body longer than maxBody ends the session with an
// error instead of growing a buffer to the claimed size (a frame claiming
// Content-Length 999999999999 ran the process out of memory). LSP bodies are
// JSON text of one document; 64 MiB is far beyond any source file.
const (
	maxHeaderLine = 4096
	maxBody       = 64 << 20
)

// read returns the next message's body; io.EOF at a clean end of input.
func (c *conn) read() ([]byte, error) {
	length := -1
	for first := true; ; first = false {
		raw, err := c.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull || len(raw) > maxHeaderLine {
			return nil, fmt.Errorf("header line longer than %d bytes", maxHeaderLine)
		}
		line := string(raw)
		if err != nil {
			if err == io.EOF && first && line == "" {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading header: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("malformed header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", val)
			}
			if n > maxBody {
				return nil, fmt.Errorf("Content-Length %d is over the limit of %d bytes", n, maxBody)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("message without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	return body, nil
}

// write sends v as one framed message.
func (c *conn) write(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

// reply answers request id with result, or with err when it is not nil.
func (c *conn) reply(id json.RawMessage, result any, err error) error {
	if err != nil {
		re, ok := err.(*respError)
		if !ok {
			re = &respError{Code: codeRequestFailed, Message: err.Error()}
		}
		return c.write(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *respError      `json:"error"`
		}{"2.0", id, re})
	}
	return c.write(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, result})
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	return c.write(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
}
