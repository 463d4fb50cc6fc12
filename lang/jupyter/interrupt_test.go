package jupyter

import (
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/stoptest"
)

// TestInterruptStopsChol: the kernel declares interrupt_mode "message", so
// a notebook interrupts a cell with an interrupt_request on the control
// channel; one sent while chol factors a matrix of order 6000 (seconds of
// work) stops it within half a second, counted from the request to the
// cell's execute_reply, and the next cell runs. The stop is judged by the
// time a core of its own would have taken (internal/stoptest's Probe), so
// a crowded machine needs no retry.
func TestInterruptStopsChol(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a factorisation of order 6000 (seconds)")
	}
	if mode := NewSpec("kml").InterruptMode; mode != "message" {
		t.Fatalf("the kernel declares interrupt_mode %q; this test sends interrupt_request", mode)
	}
	c, _ := startKernel(t)
	const allowed = 500 * time.Millisecond
	took, share := interruptChol(t, c, true)
	core := time.Duration(float64(took) * share)
	t.Logf("execute_reply %v after interrupt_request (a runnable thread got %.2f of a core: %v at a full core's speed)", took, share, core)
	if took > allowed && core > allowed {
		t.Fatalf("chol stopped %v after interrupt_request (%v at a full core's speed), want within %v", took, core, allowed)
	}
	if _, out := c.execute("chol(eye(2) * 9)"); !strings.Contains(out["execute_result"]["data"].(map[string]any)["text/plain"].(string), "3") {
		t.Errorf("the cell after the interrupts: %v", out)
	}
}

// interruptChol runs a cell with a large chol, interrupts it once it is
// inside the level-3 BLAS, and returns how long the reply took and the
// share of a core a thread got meanwhile when probe is set (1 otherwise).
func interruptChol(t *testing.T, c *client, probe bool) (time.Duration, float64) {
	req := c.send(c.shell, "execute_request", map[string]any{"code": "let A = eye(6000) * 2\nlet L = chol(A)"})
	if !stoptest.WaitDense(1, 2*time.Minute) {
		t.Fatal("chol did not reach its factorisation within 2 minutes")
	}
	var p *stoptest.Probe
	if probe {
		p = stoptest.Start()
	}
	start := time.Now()
	ireq := c.send(c.control, "interrupt_request", map[string]any{})
	reply := c.reply(c.shell, req, "execute_reply")
	took := time.Since(start)
	share := 1.0
	if p != nil {
		share = p.Stop()
	}
	c.reply(c.control, ireq, "interrupt_reply")
	c.output(req)
	if reply["status"] != "error" || reply["ename"] != "Interrupted" || !strings.Contains(reply["evalue"].(string), "chol: interrupted") {
		t.Fatalf("the interrupted cell's reply: %v", reply)
	}
	return took, share
}
