package jupyter

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/go-zeromq/zmq4"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/repl"
)

// recorder is a socket that keeps what is sent on it.
type recorder struct {
	zmq4.Socket // nil: only SendMulti is called
	sent        [][][]byte
}

func (r *recorder) SendMulti(m zmq4.Msg) error {
	r.sent = append(r.sent, m.Frames)
	return nil
}

// fuzzKey signs the fuzzed messages; frameSep separates the frames of a
// fuzz input.
const (
	fuzzKey  = "fuzz-key"
	frameSep = "\x1e"
)

// offlineKernel is a kernel whose sockets record instead of sending.
func offlineKernel() (*kernel, *recorder) {
	rec := &recorder{}
	k := &kernel{cfg: Config{Log: io.Discard}, sign: signer{[]byte(fuzzKey)}, session: "fuzz-session", stop: func() {}}
	k.shell, k.control, k.iopub, k.stdin = &channel{sock: rec}, &channel{sock: rec}, &channel{sock: rec}, &channel{sock: rec}
	opts := eval.Options{Stdout: stream{k, "stdout"}, Stderr: stream{k, "stderr"}}
	k.sess = repl.NewSession(eval.New(opts), "cell", opts.Stdout, opts.Stderr)
	return k, rec
}

// FuzzMessage decodes any frames as a message on the shell or control
// socket and, when they decode, handles it as the kernel does: never a
// panic, a message whose signature does not match is dropped, and every
// frame the kernel sends back decodes under its key with the request as
// parent. With resign the fuzzer's frames are signed first, so that its
// headers and contents reach the handlers; without, the signature check
// itself is fuzzed. execute_request, which runs the code (fuzzed by
// lang/check's and stdlib's fuzz targets), is decoded but not run. Fuzz
// with
//
//	go test -run XXX -fuzz FuzzMessage ./lang/jupyter
func FuzzMessage(f *testing.F) {
	s := signer{[]byte(fuzzKey)}
	parent := &Header{MsgID: "p1", Session: "client", MsgType: "x"}
	for _, c := range []struct {
		msgType string
		content any
	}{
		{"kernel_info_request", map[string]any{}},
		{"complete_request", map[string]any{"code": "let abc = 1\nab", "cursor_pos": 14}},
		{"complete_request", map[string]any{"code": "mean(", "cursor_pos": -3}},
		{"inspect_request", map[string]any{"code": "sample(m, ", "cursor_pos": 99, "detail_level": 0}},
		{"is_complete_request", map[string]any{"code": "model m {"}},
		{"is_complete_request", map[string]any{"code": ":load x.kml"}},
		{"history_request", map[string]any{"hist_access_type": "tail", "n": 10}},
		{"comm_info_request", map[string]any{}},
		{"interrupt_request", map[string]any{}},
		{"shutdown_request", map[string]any{"restart": true}},
		{"execute_request", map[string]any{"code": "1 + 1", "silent": false}},
		{"unknown_request", []any{1, "x", nil}},
	} {
		frames, err := s.encode([][]byte{[]byte("client-id")}, "client", c.msgType, parent, c.content)
		if err != nil {
			f.Fatal(err)
		}
		joined := string(bytes.Join(frames, []byte(frameSep)))
		f.Add(joined, true)
		f.Add(joined, false)
	}
	f.Add("<IDS|MSG>"+frameSep+frameSep+"{}"+frameSep+"{}"+frameSep+"{}"+frameSep+"{}", true)
	f.Add("a"+frameSep+"b"+frameSep+"<IDS|MSG>"+frameSep+"bad"+frameSep+`{"msg_type":1}`+frameSep+"["+frameSep+"null"+frameSep+"", false)
	f.Add("no delimiter", true)
	k, rec := offlineKernel()
	f.Fuzz(func(t *testing.T, input string, resign bool) {
		frames := bytes.Split([]byte(input), []byte(frameSep))
		if resign {
			for i := range frames {
				if bytes.Equal(frames[i], delimiter) && len(frames) >= i+6 {
					frames[i+1] = s.sign(frames[i+2 : i+6])
					break
				}
			}
		}
		m, err := k.sign.decode(frames)
		if err != nil {
			return
		}
		i := len(m.Identities)
		if !bytes.Equal(frames[i], delimiter) || !bytes.Equal(m.Content, frames[i+5]) {
			t.Fatalf("decoded identities %q and content %q from frames %q", m.Identities, m.Content, frames)
		}
		if m.Header.MsgType == "execute_request" {
			return
		}
		rec.sent = nil
		if strings.HasPrefix(m.Header.MsgType, "interrupt") || strings.HasPrefix(m.Header.MsgType, "shutdown") {
			k.controlRequest(k.control, m)
		} else {
			k.shellRequest(k.shell, m)
			if len(rec.sent) < 2 {
				t.Fatalf("a %s on shell sent %d messages; want at least busy and idle", m.Header.MsgType, len(rec.sent))
			}
		}
		for _, out := range rec.sent {
			r, err := k.sign.decode(out)
			if err != nil {
				t.Fatalf("the kernel sent frames it cannot decode: %v", err)
			}
			if r.Parent.MsgID != m.Header.MsgID {
				t.Fatalf("a %s to %q has parent %q", r.Header.MsgType, m.Header.MsgID, r.Parent.MsgID)
			}
			var content any
			if err := json.Unmarshal(r.Content, &content); err != nil {
				t.Fatalf("a %s whose content is not JSON: %v", r.Header.MsgType, err)
			}
		}
	})
}
