package jupyter

import "sync"

// cellStreams is what the running cell has written to stdout and stderr.
// A progress display ends by disappearing, but Jupyter has no message that
// removes one output: an update to empty text leaves an empty output that
// the saved notebook keeps. So the erasure clears the cell's output
// (clear_output) and shows its streams again (replay), and the saved
// notebook holds only what the cell printed. Only streams are kept: a
// cell's other outputs (its value, an error) come after its work ends.
type cellStreams struct {
	mu      sync.Mutex
	written []streamText // consecutive writes to one stream merged
}

type streamText struct{ name, text string }

// reset forgets the previous cell's output.
func (c *cellStreams) reset() {
	c.mu.Lock()
	c.written = nil
	c.mu.Unlock()
}

// write publishes text on stream name and keeps it.
func (c *cellStreams) write(k *kernel, name, text string) {
	parent := k.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	k.publish(&parent, "stream", map[string]any{"name": name, "text": text})
	if n := len(c.written); n > 0 && c.written[n-1].name == name {
		c.written[n-1].text += text
		return
	}
	c.written = append(c.written, streamText{name, text})
}

// clear empties the cell's output on the client and shows its streams
// again, in order: the erasure of a progress display.
func (c *cellStreams) clear(k *kernel, parent *Header) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k.publish(parent, "clear_output", map[string]any{"wait": false})
	for _, s := range c.written {
		k.publish(parent, "stream", map[string]any{"name": s.name, "text": s.text})
	}
}
