package jupyter

import (
	"strings"
	"sync"
)

// progressDisplay is where runtime/progress draws its line in a kernel.
// The reporter writes "\r\033[K" and the line to redraw it, and the bare
// "\r\033[K" to erase it at the end of its task; here the first line of a
// task becomes a display_data with a fresh display_id, each redraw an
// update_display_data of it, and the erasure a clear_output that shows the
// cell's streams again (cellStreams), so a notebook shows one line that
// changes in place and then goes, as the terminal does, and a saved
// notebook keeps no empty output where it was.
type progressDisplay struct {
	k  *kernel
	mu sync.Mutex
	id string // the display being updated, "" when none is shown
}

const erase = "\r\033[K"

func (p *progressDisplay) Write(b []byte) (int, error) {
	line := strings.TrimSpace(strings.ReplaceAll(string(b), erase, ""))
	parent := p.k.current()
	p.mu.Lock()
	defer p.mu.Unlock()
	data := map[string]any{"text/plain": line}
	switch {
	case line == "" && p.id == "":
	case line == "":
		p.k.streams.clear(p.k, &parent) // an empty display would stay in the saved notebook
		p.id = ""
	case p.id == "":
		p.id = newID()
		p.k.publish(&parent, "display_data", map[string]any{"data": data, "metadata": map[string]any{},
			"transient": map[string]any{"display_id": p.id}})
	default:
		p.k.publish(&parent, "update_display_data", map[string]any{"data": data, "metadata": map[string]any{},
			"transient": map[string]any{"display_id": p.id}})
	}
	return len(b), nil
}
