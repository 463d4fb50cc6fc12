package jupyter

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// TestHostileFramesDropped sends the kernel's shell socket what no
// Jupyter client sends: no delimiter, too few frames, a correctly signed
// header that is not JSON, a 4 MB content that is not JSON, and a
// complete_request whose cursor is far past its code. The malformed ones
// are dropped without an answer, the last answered, and the kernel goes on
// answering (issue 38's hostile frames, on the real sockets).
func TestHostileFramesDropped(t *testing.T) {
	c, _ := startKernel(t)
	raw := func(frames ...[]byte) {
		if err := c.shell.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	signed := func(header, content string) {
		f := [][]byte{[]byte(header), []byte("{}"), []byte("{}"), []byte(content)}
		raw(append([][]byte{delimiter, c.sign.sign(f)}, f...)...)
	}
	raw([]byte("no delimiter"), []byte("{}"))
	raw(delimiter, []byte("sig"), []byte("{}"))
	signed(`{"msg_type": [`, `{}`)
	signed(`{"msg_id":"h1","msg_type":"kernel_info_request"`, `{}`)
	select {
	case m := <-c.replies[c.shell]:
		t.Errorf("a malformed message was answered: %s", m.Header.MsgType)
	case <-time.After(300 * time.Millisecond):
	}
	signed(`{"msg_id":"big","session":"s","msg_type":"complete_request"}`, strings.Repeat("[", 4<<20))
	select {
	case m := <-c.replies[c.shell]:
		if m.Header.MsgType != "complete_reply" || m.Parent.MsgID != "big" {
			t.Errorf("a complete_request with a content that is not JSON: %s to %s", m.Header.MsgType, m.Parent.MsgID)
		}
	case <-time.After(2 * time.Minute): // a hang guard, for a crowded machine
		t.Fatal("no answer to a complete_request with a content that is not JSON")
	}
	req := c.send(c.shell, "complete_request", map[string]any{"code": "mea", "cursor_pos": 1 << 40})
	if r := c.reply(c.shell, req, "complete_reply"); r["cursor_end"] != float64(3) {
		t.Errorf("a cursor past the code: %v", r)
	}
	req = c.send(c.shell, "kernel_info_request", map[string]any{})
	if r := c.reply(c.shell, req, "kernel_info_reply"); r["status"] != "ok" {
		t.Errorf("kernel_info_reply after the hostile frames: %v", r)
	}
	req = c.send(c.control, "shutdown_request", map[string]any{})
	c.reply(c.control, req, "shutdown_reply")
}
