package jupyter

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// notebookOutputs applies iopub messages to a cell's outputs as nbclient
// does when it executes and saves a notebook: streams append (consecutive
// ones of a stream merge), display_data adds, update_display_data replaces
// the display with its id, clear_output empties the cell.
type notebookOutputs struct {
	outs []map[string]any
	ids  map[string]int
}

func (n *notebookOutputs) apply(m *Message) {
	var c map[string]any
	json.Unmarshal(m.Content, &c)
	switch m.Header.MsgType {
	case "stream":
		if k := len(n.outs); k > 0 && n.outs[k-1]["output_type"] == "stream" && n.outs[k-1]["name"] == c["name"] {
			n.outs[k-1]["text"] = n.outs[k-1]["text"].(string) + c["text"].(string)
			return
		}
		n.outs = append(n.outs, map[string]any{"output_type": "stream", "name": c["name"], "text": c["text"]})
	case "display_data":
		id := c["transient"].(map[string]any)["display_id"].(string)
		n.ids[id] = len(n.outs)
		n.outs = append(n.outs, map[string]any{"output_type": "display_data", "data": c["data"]})
	case "update_display_data":
		id := c["transient"].(map[string]any)["display_id"].(string)
		if i, ok := n.ids[id]; ok {
			n.outs[i]["data"] = c["data"]
		}
	case "clear_output":
		n.outs, n.ids = nil, map[string]int{}
	}
}

// TestProgressLeavesNoEmptyOutput: a cell that prints, shows a progress
// line, erases it and prints again is saved with its two prints only —
// before, the erased display stayed as an empty text/plain output.
func TestProgressLeavesNoEmptyOutput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port := freePorts(t, 1)[0]
	conn := Connection{Transport: "tcp", IP: "127.0.0.1", IOPubPort: port, Key: "k"}
	k := &kernel{sign: signer{[]byte("k")}, session: newID(), iopub: &channel{sock: zmq4.NewPub(ctx)}}
	if err := k.iopub.sock.Listen(conn.endpoint(port)); err != nil {
		t.Fatal(err)
	}
	defer k.iopub.sock.Close()
	c := &client{t: t, sign: k.sign, iopub: zmq4.NewSub(ctx), published: make(chan *Message, 100)}
	if err := c.iopub.Dial(conn.endpoint(port)); err != nil {
		t.Fatal(err)
	}
	defer c.iopub.Close()
	c.iopub.SetOption(zmq4.OptionSubscribe, "")
	go c.receive(c.iopub, c.published)
	// A subscription takes a moment to reach the publisher: wait until a
	// status message gets through.
	for ready := false; !ready; {
		k.publish(nil, "status", map[string]any{"execution_state": "idle"})
		select {
		case <-c.published:
			ready = true
		case <-time.After(50 * time.Millisecond):
		}
	}
	for len(c.published) > 0 {
		<-c.published
	}

	k.streams.reset()
	out := stream{k, "stdout"}
	p := &progressDisplay{k: k}
	fmt.Fprint(out, "before\n")
	fmt.Fprint(p, erase+"sample: warm-up 10/100")
	fmt.Fprint(p, erase+"sample: warm-up 90/100")
	fmt.Fprint(stream{k, "stderr"}, "t.kml:1:1: warning: w\n")
	fmt.Fprint(p, erase)
	fmt.Fprint(out, "after\n")
	k.publish(nil, "status", map[string]any{"execution_state": "idle"}) // the end marker

	nb := &notebookOutputs{ids: map[string]int{}}
	shown := false
	for done := false; !done; {
		select {
		case m := <-c.published:
			if m.Header.MsgType == "status" {
				done = true
				break
			}
			nb.apply(m)
			shown = shown || m.Header.MsgType == "display_data"
		case <-time.After(2 * time.Minute):
			// Loose, for a loaded machine: a lost message is what it catches.
			t.Fatal("the messages did not arrive")
		}
	}
	want := []map[string]any{
		{"output_type": "stream", "name": "stdout", "text": "before\n"},
		{"output_type": "stream", "name": "stderr", "text": "t.kml:1:1: warning: w\n"},
		{"output_type": "stream", "name": "stdout", "text": "after\n"},
	}
	if !shown || !reflect.DeepEqual(nb.outs, want) {
		t.Errorf("progress shown %v; saved outputs %v, want %v", shown, nb.outs, want)
	}
}
