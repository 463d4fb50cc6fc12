package jupyter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/go-zeromq/zmq4"

	"github.com/kml-lang/kml/lang/assist"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/render"
	"github.com/kml-lang/kml/lang/repl"
)

// Config is what Serve needs.
type Config struct {
	Conn Connection
	// Options make the session's interpreter (its directories, seed, memory
	// budget); Serve sets the output streams and progress.
	Options eval.Options
	// Interrupts delivers SIGINT: each stops the running cell. Nil: none.
	Interrupts <-chan os.Signal
	// Log receives what the kernel cannot tell a client (a bad message);
	// nil discards it.
	Log io.Writer
}

// kernel is one running kernel.
type kernel struct {
	cfg     Config
	sign    signer
	session string // this kernel's session id, in every header it sends
	sess    *repl.Session
	count   int // execution_count

	shell, control, iopub, stdin *channel
	hb                           zmq4.Socket

	streams cellStreams // the running cell's stdout and stderr

	mu     sync.Mutex
	parent Header             // the request being handled on shell
	cancel context.CancelFunc // cancels the running cell, nil when none

	stop     context.CancelFunc
	stopOnce sync.Once
}

// Serve runs the kernel until a shutdown_request or ctx ends.
func Serve(ctx context.Context, cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	k := &kernel{cfg: cfg, sign: signer{[]byte(cfg.Conn.Key)}, session: newID(), stop: stop}
	k.shell = &channel{sock: zmq4.NewRouter(ctx)}
	k.control = &channel{sock: zmq4.NewRouter(ctx)}
	k.stdin = &channel{sock: zmq4.NewRouter(ctx)}
	k.iopub = &channel{sock: zmq4.NewPub(ctx)}
	k.hb = zmq4.NewRep(ctx)
	socks := []struct {
		s    zmq4.Socket
		port int
	}{{k.shell.sock, cfg.Conn.ShellPort}, {k.control.sock, cfg.Conn.ControlPort},
		{k.stdin.sock, cfg.Conn.StdinPort}, {k.iopub.sock, cfg.Conn.IOPubPort}, {k.hb, cfg.Conn.HBPort}}
	defer func() {
		for _, s := range socks {
			s.s.Close()
		}
	}()
	for _, s := range socks {
		if err := s.s.Listen(cfg.Conn.endpoint(s.port)); err != nil {
			return fmt.Errorf("listen on %s: %v", cfg.Conn.endpoint(s.port), err)
		}
	}

	opts := cfg.Options
	opts.Stdout = stream{k, "stdout"}
	opts.Stderr = stream{k, "stderr"}
	opts.Progress = true
	opts.ProgressTo = &progressDisplay{k: k}
	opts.JSON = false
	in := eval.New(opts)
	k.sess = repl.NewSession(in, "cell", opts.Stdout, opts.Stderr)

	go k.heartbeat()
	go k.loop(ctx, k.control, k.controlRequest)
	go k.interrupts(ctx)
	k.publish(nil, "status", map[string]any{"execution_state": "starting"})
	go k.loop(ctx, k.shell, k.shellRequest)
	<-ctx.Done()
	return nil
}

// heartbeat echoes every ping.
func (k *kernel) heartbeat() {
	for {
		m, err := k.hb.Recv()
		if err != nil {
			return
		}
		if err := k.hb.Send(m); err != nil {
			return
		}
	}
}

// interrupts cancels the running cell on SIGINT.
func (k *kernel) interrupts(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.cfg.Interrupts:
			k.interrupt()
		}
	}
}

// interrupt stops the running cell, if any: its context, and through the
// interpreter's Interrupt a dense factorisation that cannot see it.
func (k *kernel) interrupt() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cancel != nil {
		k.cancel()
		k.sess.Interp().Interrupt()
	}
}

// loop receives the requests of one socket and handles them in turn.
func (k *kernel) loop(ctx context.Context, ch *channel, handle func(*channel, *Message)) {
	for {
		raw, err := ch.sock.Recv()
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(k.cfg.Log, "kml jupyter: receive: %v\n", err)
				k.shutdown()
			}
			return
		}
		m, err := k.sign.decode(raw.Frames)
		if err != nil {
			fmt.Fprintf(k.cfg.Log, "kml jupyter: %v\n", err)
			continue
		}
		handle(ch, m)
	}
}

// shutdown stops Serve.
func (k *kernel) shutdown() { k.stopOnce.Do(k.stop) }

// reply sends a reply to m on ch.
func (k *kernel) reply(ch *channel, m *Message, msgType string, content any) {
	frames, err := k.sign.encode(m.Identities, k.session, msgType, &m.Header, content)
	if err == nil {
		err = ch.send(frames)
	}
	if err != nil {
		fmt.Fprintf(k.cfg.Log, "kml jupyter: send %s: %v\n", msgType, err)
	}
}

// publish sends a message on iopub in reply to parent (nil: none).
func (k *kernel) publish(parent *Header, msgType string, content any) {
	topic := []byte("kernel." + k.session + "." + msgType)
	frames, err := k.sign.encode([][]byte{topic}, k.session, msgType, parent, content)
	if err == nil {
		err = k.iopub.send(frames)
	}
	if err != nil {
		fmt.Fprintf(k.cfg.Log, "kml jupyter: publish %s: %v\n", msgType, err)
	}
}

// current is the header of the shell request being handled, the parent
// of the output it causes.
func (k *kernel) current() Header {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.parent
}

// shellRequest handles one shell message, between busy and idle.
func (k *kernel) shellRequest(ch *channel, m *Message) {
	k.mu.Lock()
	k.parent = m.Header
	k.mu.Unlock()
	k.publish(&m.Header, "status", map[string]any{"execution_state": "busy"})
	defer k.publish(&m.Header, "status", map[string]any{"execution_state": "idle"})
	switch m.Header.MsgType {
	case "kernel_info_request":
		k.reply(ch, m, "kernel_info_reply", k.info())
	case "execute_request":
		k.execute(ch, m)
	case "complete_request":
		k.complete(ch, m)
	case "inspect_request":
		k.inspect(ch, m)
	case "is_complete_request":
		var req struct {
			Code string `json:"code"`
		}
		json.Unmarshal(m.Content, &req)
		status := "complete"
		if !strings.HasPrefix(strings.TrimSpace(req.Code), ":") && repl.Incomplete(req.Code) {
			status = "incomplete"
		}
		k.reply(ch, m, "is_complete_reply", map[string]any{"status": status, "indent": ""})
	case "history_request":
		k.reply(ch, m, "history_reply", map[string]any{"status": "ok", "history": []any{}})
	case "comm_info_request":
		k.reply(ch, m, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "shutdown_request":
		k.shutdownRequest(ch, m)
	default:
		fmt.Fprintf(k.cfg.Log, "kml jupyter: ignoring %s\n", m.Header.MsgType)
	}
}

// controlRequest handles one control message; it runs beside a cell.
func (k *kernel) controlRequest(ch *channel, m *Message) {
	switch m.Header.MsgType {
	case "interrupt_request":
		k.interrupt()
		k.reply(ch, m, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		k.shutdownRequest(ch, m)
	case "kernel_info_request":
		k.reply(ch, m, "kernel_info_reply", k.info())
	default:
		fmt.Fprintf(k.cfg.Log, "kml jupyter: ignoring %s on control\n", m.Header.MsgType)
	}
}

func (k *kernel) shutdownRequest(ch *channel, m *Message) {
	var req struct {
		Restart bool `json:"restart"`
	}
	json.Unmarshal(m.Content, &req)
	k.interrupt()
	content := map[string]any{"status": "ok", "restart": req.Restart}
	k.reply(ch, m, "shutdown_reply", content)
	k.publish(&m.Header, "shutdown_reply", content)
	k.shutdown()
}

// info is the kernel_info_reply.
func (k *kernel) info() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       ProtocolVersion,
		"implementation":         "kml",
		"implementation_version": eval.Version,
		"language_info": map[string]any{
			"name":           "kml",
			"version":        eval.Version,
			"mimetype":       "text/x-kml",
			"file_extension": ".kml",
		},
		"banner":     "KML " + eval.Version + " — kernel modelling language. :help for help.",
		"help_links": []any{},
	}
}

// execute runs a cell: its input is echoed, its output streamed, its
// value sent as a MIME bundle, its error with the caret snippet.
func (k *kernel) execute(ch *channel, m *Message) {
	var req struct {
		Code         string `json:"code"`
		Silent       bool   `json:"silent"`
		StoreHistory *bool  `json:"store_history"`
	}
	if err := json.Unmarshal(m.Content, &req); err != nil {
		fmt.Fprintf(k.cfg.Log, "kml jupyter: execute_request: %v\n", err)
	}
	if !req.Silent && (req.StoreHistory == nil || *req.StoreHistory) {
		k.count++
	}
	// The cell is interruptible from here on: a client that has seen
	// execute_input may interrupt it at once.
	ctx, cancel := context.WithCancel(context.Background())
	k.mu.Lock()
	k.cancel = cancel
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.cancel = nil
		k.mu.Unlock()
		cancel()
	}()
	k.streams.reset()
	if !req.Silent {
		k.publish(&m.Header, "execute_input", map[string]any{"code": req.Code, "execution_count": k.count})
	}
	var v eval.Value
	var err error
	if strings.TrimSpace(req.Code) != "" {
		v, err = k.sess.Exec(ctx, req.Code)
	}
	var data map[string]any
	if err == nil && v != nil && v != eval.NoneValue && !req.Silent {
		data, err = render.Bundle(v)
	}
	if err != nil {
		ename, evalue, traceback := k.describe(err)
		k.publish(&m.Header, "error", map[string]any{"ename": ename, "evalue": evalue, "traceback": traceback})
		k.reply(ch, m, "execute_reply", map[string]any{"status": "error", "execution_count": k.count,
			"ename": ename, "evalue": evalue, "traceback": traceback})
		return
	}
	if data != nil {
		k.publish(&m.Header, "execute_result", map[string]any{"execution_count": k.count, "data": data, "metadata": map[string]any{}})
	}
	k.reply(ch, m, "execute_reply", map[string]any{"status": "ok", "execution_count": k.count,
		"payload": []any{}, "user_expressions": map[string]any{}})
}

// describe is an error as the protocol carries it: a name, the first line
// of the message, and as traceback the lines `kml run` prints (the
// position, the message, the source line and its caret).
func (k *kernel) describe(err error) (ename, evalue string, traceback []string) {
	var b bytes.Buffer
	k.sess.Interp().Sources().Print(&b, err)
	text := strings.TrimRight(b.String(), "\n")
	ename = "Error"
	if errors.Is(err, context.Canceled) {
		ename = "Interrupted"
	}
	evalue, _, _ = strings.Cut(text, "\n")
	return ename, evalue, strings.Split(text, "\n")
}

// complete answers a complete_request with the REPL's Tab candidates.
func (k *kernel) complete(ch *channel, m *Message) {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	json.Unmarshal(m.Content, &req)
	code := []rune(req.Code)
	cursor := min(max(req.CursorPos, 0), len(code))
	prefix, matches := k.sess.Complete(code[:cursor])
	if matches == nil {
		matches = []string{}
	}
	k.reply(ch, m, "complete_reply", map[string]any{"status": "ok", "matches": matches,
		"cursor_start": cursor - len([]rune(prefix)), "cursor_end": cursor, "metadata": map[string]any{}})
}

// inspect answers an inspect_request with `:help NAME` for the name at
// the cursor (or, just inside a call's brackets, the function called).
func (k *kernel) inspect(ch *channel, m *Message) {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	json.Unmarshal(m.Content, &req)
	code := []rune(req.Code)
	cursor := min(max(req.CursorPos, 0), len(code))
	start, end := cursor, cursor
	for start > 0 && assist.IsNameRune(code[start-1]) {
		start--
	}
	for end < len(code) && assist.IsNameRune(code[end]) {
		end++
	}
	name := string(code[start:end])
	if name == "" {
		name = assist.Callee(code[:cursor])
	}
	content := map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}
	if text, ok := k.sess.Help(name); ok && name != "" {
		content["found"] = true
		content["data"] = map[string]any{"text/plain": text}
	}
	k.reply(ch, m, "inspect_reply", content)
}

// stream sends what the interpreter writes to stdout or stderr as stream
// output of the running cell.
type stream struct {
	k    *kernel
	name string
}

func (s stream) Write(p []byte) (int, error) {
	s.k.streams.write(s.k, s.name, string(p))
	return len(p), nil
}
